// The child process of TypedDefaults' tests: it writes and reads real suites in the config directory its
// environment names (the tests point XDG_CONFIG_HOME and HOME at a temporary directory).
//
//     TypedDefaultsTestHelper write-matrix <suite>        write the type matrix
//     TypedDefaultsTestHelper verify-matrix <suite>       check it came back exactly; exit 1 if not
//     TypedDefaultsTestHelper increment-standard          Defaults[\.launchCount] += 1, print the count
//     TypedDefaultsTestHelper print-settings [-key value ...]          print the settings, launch arguments on
//     TypedDefaultsTestHelper print-settings-ignoring [-key value ...] the same with launch arguments ignored
//     TypedDefaultsTestHelper write-count <n> [-key value ...]         write `count`, then print the settings
//     TypedDefaultsTestHelper modify-count [-key value ...]            modify `count` += 1, print stored settings
//     TypedDefaultsTestHelper standard-flag                print `UserDefaults.standard[flag]`, then set it
//     TypedDefaultsTestHelper static-key-standard          Defaults[.quality] and the key's own reset and
//                                                          isDefaultValue on .standard, printing each step
//     TypedDefaultsTestHelper probe-key <suite> <key>      print a String? key's value and hasKey
//     TypedDefaultsTestHelper contract                     run the API the README and the issue promise
//     TypedDefaultsTestHelper write-and-wait <suite> <key> <value>    write (coalesced), say so, then hang
//     TypedDefaultsTestHelper exit-call <suite> <key> <value>         write (coalesced), then call exit(0)
//     TypedDefaultsTestHelper write-distinct <suite> <prefix> <count> write keys <prefix>.0 ..., then return
//     TypedDefaultsTestHelper increment <suite> <count>               modify `counter` += 1, count times
//     TypedDefaultsTestHelper storm <suite>               immediate writes forever, printing each durable one
//     TypedDefaultsTestHelper write-limited <suite> <bytes>           write past a file-size limit
//     TypedDefaultsTestHelper observe-starved <suite> <spare>         observe with descriptors exhausted
//     (and the hostile-conditions commands in HostileCommands.swift, a process's edges in ProcessLifeCommands.swift)
//     TypedDefaultsTestHelper write-pending <suite> <key> <value>     write (coalesced over an hour), then hang
//     TypedDefaultsTestHelper write-pending-nohup <suite> <key> <value>   the same, ignoring SIGHUP
//     TypedDefaultsTestHelper own-sigterm-before|own-sigterm-after <suite> <key> <value>
//                                                          the same, handling SIGTERM itself (flushAll, _exit(0))
//     TypedDefaultsTestHelper own-store-pending|own-store-exit|own-store-flush-all <file> <key> <value>
//                                                          write-pending (exit-call, flushAll) over stores of
//                                                          the program's own flushing to JSON files, one failing
//     TypedDefaultsTestHelper flush-all-failing <prefix>   DefaultsShutdown.flushAll() with one suite failing
//     TypedDefaultsTestHelper deep-codable <suite> <kind> <levels>    write a Codable value nested that deep
//     TypedDefaultsTestHelper deep-json <suite> <levels>              read stored JSON nested that deep
//     TypedDefaultsTestHelper hostile-archive <suite> <case>          write an archive Linux cannot name
//     TypedDefaultsTestHelper read-archive <suite> <stored> <as>      store an archive, read it as a class
//     TypedDefaultsTestHelper deep-note <suite> <levels>              write a chain of NSCoding notes that deep
//     TypedDefaultsTestHelper print-migration-types <suite>   print the issue-13 value types' keys
//     TypedDefaultsTestHelper edit-script <suite> <file>   the edits a JSON file lists ([["set", key, value],
//                                                          ["remove", key], ["flush"]]), then a flush

import Foundation
import TypedDefaults
import TypedDefaultsTestSupport

#if canImport(Glibc)
import Glibc
#endif

#if TYPED_DEFAULTS_FOUNDATION_STORAGE
// Suites go to the config directory the test gave: Foundation on Apple platforms does not read
// XDG_CONFIG_HOME, and must not write the user's real preferences.
if let directory = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"] {
    UserDefaultsStore.keepSuitesForTesting(in: directory)
}
#endif

/// Writes a line at once (no buffer), so a test that kills this process has seen every line said before.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

extension DefaultsKeys {
    var launchCount: Key<Int> { .init("launchCount", default: 0) }
    var count: Key<Int> { .init("count", default: 0) }
    var offset: Key<Int> { .init("offset", default: 0) }
    var flag: Key<Bool> { .init("flag", default: false) }
    var ratio: Key<Double> { .init("ratio", default: 0) }
    var name: Key<String> { .init("name", default: "") }
    var theme: Key<Theme> { .init("theme", default: .system) }
    var priority: Key<Priority?> { .init("priority") }
    var site: Key<URL> { .init("site", default: URL(string: "https://default.example")!) }
    var tags: Key<[String]> { .init("tags", default: []) }
    var output: Key<String> { .init("o", default: "") }
    var username: Key<String?> { .init("username") }
    var volume: Key<Double> { .init("volume", default: 0.5) }
    var profile: Key<Profile?> { .init("profile") }
    var recentFiles: Key<[URL]> { .init("recentFiles", default: []) }
}

func printSettings(_ defaults: DefaultsAdapter<DefaultsKeys>) {
    print("count=\(defaults.count)")
    print("offset=\(defaults.offset)")
    print("flag=\(defaults.flag)")
    print("ratio=\(defaults.ratio)")
    print("name=\(defaults.name)")
    print("theme=\(defaults.theme)")
    print("priority=\(defaults.priority.map { "\($0)" } ?? "nil")")
    print("site=\(defaults.site.absoluteString)")
    print("tags=\(defaults.tags.joined(separator: ","))")
    print("o=\(defaults.output)")
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

let arguments = CommandLine.arguments.dropFirst()
if let status = try runHostileCommand(Array(arguments)) { exit(status) }
if let status = try runProcessLifeCommand(Array(arguments)) { exit(status) }
if let status = try runAttackCommand(Array(arguments)) { exit(status) }
switch arguments.first {
case "write-matrix":
    guard let suite = arguments.dropFirst().first else { fail("write-matrix needs a suite name") }
    let defaults = try DefaultsAdapter(suiteName: suite, keyStore: DefaultsKeys(), launchArguments: .ignored)
    try TypeMatrix.write(TypeMatrix.catalog, to: defaults)
    print("wrote \(TypeMatrix.catalog.count)")
case "verify-matrix":
    guard let suite = arguments.dropFirst().first else { fail("verify-matrix needs a suite name") }
    let defaults = try DefaultsAdapter(suiteName: suite, keyStore: DefaultsKeys(), launchArguments: .ignored)
    let failures = TypeMatrix.failures(TypeMatrix.catalog, in: defaults)
    for failure in failures { print("MISMATCH \(failure)") }
    print("verified \(TypeMatrix.catalog.count - failures.count) of \(TypeMatrix.catalog.count)")
    exit(failures.isEmpty ? 0 : 1)
case "increment-standard":
    Defaults[\.launchCount] += 1
    print(Defaults.launchCount)
case "print-settings":
    printSettings(Defaults)
case "print-settings-ignoring":
    printSettings(DefaultsAdapter(defaults: .standard, keyStore: DefaultsKeys(), launchArguments: .ignored))
case "write-count":
    guard let text = arguments.dropFirst().first, let value = Int(text) else { fail("write-count needs a number") }
    Defaults.count = value
    printSettings(Defaults)
case "modify-count":
    try Defaults.modify(\.count) { $0 += 1 }
    printSettings(DefaultsAdapter(defaults: .standard, keyStore: DefaultsKeys(), launchArguments: .ignored))
case "standard-flag":
    let flag = Key<Bool>("flag", default: false)
    print("flag=\(UserDefaults.standard[flag])")
    UserDefaults.standard[flag] = true
case "static-key-standard":
    let quality = Key<Double>("quality", default: 0.8)
    print("before=\(Defaults[quality]) default=\(quality.isDefaultValue)")
    Defaults[quality] = 0.5
    print("set=\(Defaults[quality]) default=\(quality.isDefaultValue)")
    quality.reset()
    print("reset=\(Defaults[quality]) default=\(quality.isDefaultValue) stored=\(Defaults.hasKey(quality))")
    Defaults[quality] = 0.25
    try Defaults.flush()
case "probe-key":
    let rest = Array(arguments.dropFirst())
    guard rest.count == 2 else { fail("probe-key needs a suite and a key") }
    let defaults = try DefaultsAdapter(suiteName: rest[0], keyStore: DefaultsKeys(), launchArguments: .ignored)
    let key = Key<String?>(rest[1])
    print("value=\(defaults[key: key] ?? "nil")")
    print("hasKey=\(defaults.hasKey(key))")
case "contract":
    // The user-facing API exactly as documented, against `.standard` and a shared suite.
    let url = URL(fileURLWithPath: "/tmp/notes.txt")
    Defaults[\.launchCount] += 1
    Defaults.volume -= 0.1
    Defaults[\.recentFiles].append(url)
    Defaults.profile = Profile(name: "Ann", tags: ["a"], joined: Date(timeIntervalSinceReferenceDate: 0.5))
    Defaults.username = "ann"
    let flag = Key<Bool>("flag", default: false)
    Defaults[key: flag] = true
    let shared = try DefaultsAdapter(suiteName: "com.example.shared", keyStore: DefaultsKeys())
    shared.launchCount += 10
    print("launchCount=\(Defaults.launchCount)")
    print("volume=\(Defaults.volume)")
    print("recentFiles=\(Defaults.recentFiles.map(\.path).joined(separator: ","))")
    print("profile=\(Defaults.profile?.name ?? "nil")")
    print("standardFlag=\(UserDefaults.standard[flag])")
    print("shared=\(shared.launchCount)")
    print("hasUsername=\(Defaults.hasKey(\.username))")
    Defaults.reset(\.launchCount)
    print("afterReset=\(Defaults.launchCount)")
    Defaults.removeAll()
    print("afterRemoveAll=\(Defaults.hasKey(\.username)),\(Defaults[key: flag]),\(Defaults.recentFiles.count)")
case "write-and-wait", "exit-call":
    let rest = Array(arguments.dropFirst())
    guard rest.count == 3 else { fail("\(arguments.first!) needs a suite, a key and a value") }
    let defaults = try DefaultsAdapter(suiteName: rest[0], keyStore: DefaultsKeys(), launchArguments: .ignored)
    defaults[key: Key<String?>(rest[1])] = rest[2]
    say("written")
    if arguments.first == "exit-call" { exit(0) }
    while true { sleep(60) }
case "wrapper":
    // @Default on the global Defaults, as the README shows.
    struct Settings {
        @Default(\.theme) var theme
        @Default(\.theme, options: .cached) var cachedTheme
    }
    let settings = Settings()
    print("before=\(settings.theme)")
    settings.theme = .dark
    print("theme=\(Defaults.theme)")
    print("cached=\(settings.cachedTheme)")
case "write-and-set":
    // Changes `launchCount` and `username` behind another process's back.
    guard let suite = arguments.dropFirst().first else { fail("write-and-set needs a suite") }
    let defaults = try DefaultsAdapter(suiteName: suite, keyStore: DefaultsKeys(), launchArguments: .ignored)
    defaults.launchCount = 2
    defaults.username = "someone else"
case "write-distinct":
    let rest = Array(arguments.dropFirst())
    guard rest.count == 3, let count = Int(rest[2]) else { fail("write-distinct needs a suite, a prefix and a count") }
    let defaults = try DefaultsAdapter(suiteName: rest[0], keyStore: DefaultsKeys(), launchArguments: .ignored)
    for index in 0..<count {
        defaults[key: Key<Int>("\(rest[1]).\(index % 25)", default: -1)] = index
        if index % 10 == 0 { try defaults.flush() }
    }
case "increment":
    let rest = Array(arguments.dropFirst())
    guard rest.count == 2, let count = Int(rest[1]) else { fail("increment needs a suite and a count") }
    let defaults = try DefaultsAdapter(suiteName: rest[0], keyStore: DefaultsKeys(), launchArguments: .ignored)
    for _ in 0..<count { try defaults.modify(Key<Int>("counter", default: 0)) { $0 += 1 } }
case "storm":
    guard let suite = arguments.dropFirst().first else { fail("storm needs a suite") }
    let defaults = try DefaultsAdapter(
        suiteName: suite,
        keyStore: DefaultsKeys(),
        launchArguments: .ignored,
        writePolicy: .immediate
    )
    let payload = String(repeating: "payload ", count: 4096)
    var index = defaults[key: Key<Int>("counter", default: 0)]
    while true {
        index += 1
        defaults[key: Key<String>("payload", default: "")] = payload + "\(index)"
        try defaults.set(index, for: Key<Int>("counter", default: 0))
        say("durable \(index)")
    }
case "write-limited":
    let rest = Array(arguments.dropFirst())
    guard rest.count == 2, let limit = UInt(rest[1]) else { fail("write-limited needs a suite and a byte count") }
    let defaults = try DefaultsAdapter(
        suiteName: rest[0],
        keyStore: DefaultsKeys(),
        launchArguments: .ignored,
        writePolicy: .immediate
    )
    // A file-size limit makes the write fail the way a full disk does (EFBIG instead of ENOSPC).
    signal(SIGXFSZ, SIG_IGN)
    setResourceLimit(.fileSize, UInt64(limit))
    do {
        try defaults.set(String(repeating: "x", count: Int(limit) * 2), for: Key<String>("big", default: ""))
        say("result=written")
    } catch {
        say("result=\(error)")
    }
    // The refused value stays pending; leaving without it must not corrupt the file either.
    exit(3)
case "verify-entries":
    // verify-entries <suite> fixed | <seed,seed,...> <count>: what the parent wrote from GeneratedValues, exactly.
    let rest = Array(arguments.dropFirst())
    let entries: [GeneratedEntry]
    if rest.count == 2, rest[1] == "fixed" {
        entries = GeneratedValues.fixedEntries
    } else if rest.count == 3, let count = Int(rest[2]) {
        entries = rest[1].split(separator: ",").compactMap { UInt64($0) }
            .flatMap { GeneratedValues.entries(seed: $0, count: count) }
    } else {
        fail("verify-entries needs a suite and fixed, or seeds and a count")
    }
    let defaults = try DefaultsAdapter(suiteName: rest[0], keyStore: DefaultsKeys(), launchArguments: .ignored)
    try defaults.checkHealth()
    var stored = defaults.storedValues()
    var problems: [String] = []
    for entry in entries {
        guard let index = stored.index(forKey: entry.key) else {
            if entry.refusal == nil { problems.append("MISSING \(entry.key.debugDescription)") }
            continue
        }
        let (name, value) = stored.remove(at: index)
        if entry.refusal != nil { problems.append("STORED a refused value under \(entry.key.debugDescription)") }
        if !name.unicodeScalars.elementsEqual(entry.key.unicodeScalars) {
            problems.append("KEY \(entry.key.debugDescription) became \(name.debugDescription)")
        }
        problems += GeneratedValues.mismatches(expected: entry.value, actual: value, at: entry.key.debugDescription)
            .map { "MISMATCH " + $0 }
    }
    problems += stored.keys.map { "EXTRA \($0.debugDescription)" }
    for problem in problems { say(problem) }
    say("verified \(entries.count) entries, \(problems.count) problems")
    exit(problems.isEmpty ? 0 : 1)
case "verify-nested":
    // verify-nested <suite> <key> <depth> <arrays|mixed>: GeneratedValues.nested came back exactly.
    let rest = Array(arguments.dropFirst())
    guard rest.count == 4, let depth = Int(rest[2]) else { fail("verify-nested needs a suite, a key, a depth, a kind") }
    let defaults = try DefaultsAdapter(suiteName: rest[0], keyStore: DefaultsKeys(), launchArguments: .ignored)
    try defaults.checkHealth()
    guard let stored = defaults[key: Key<PropertyListValue?>(rest[1])] else { fail("nothing stored under \(rest[1])") }
    let expected = GeneratedValues.nested(depth: depth, arraysOnly: rest[3] == "arrays")
    let problems = GeneratedValues.mismatches(expected: expected, actual: stored)
    for problem in problems.prefix(5) { say("MISMATCH " + problem) }
    say("verified depth \(depth), \(problems.count) problems")
    exit(problems.isEmpty ? 0 : 1)
case "observe-starved":
    // Observes `launchCount` with no file descriptor to spare for inotify, then gives back `spare` of them: prints
    // each value observed (and whether an inotify descriptor is open then) and every diagnostic.
    let rest = Array(arguments.dropFirst())
    guard rest.count == 2, let spare = Int(rest[1]) else { fail("observe-starved needs a suite and a count") }
    DefaultsDiagnostics.setHandler { say("diagnostic=\($0.kind) \($0.message)") }
    let defaults = try DefaultsAdapter(suiteName: rest[0], keyStore: DefaultsKeys(), launchArguments: .ignored)
    say("before=\(defaults.launchCount)")
    lowerSoftResourceLimit(.openFiles, to: 128)
    var held: [Int32] = []
    while case let descriptor = open("/dev/null", O_RDONLY), descriptor >= 0 { held.append(descriptor) }
    let observation = defaults.observe(\.launchCount) {
        say("launchCount=\($0.newValue) inotify=\(holdsInotifyDescriptor())")
    }
    for descriptor in held.suffix(spare) { close(descriptor) }
    say("observing")
    withExtendedLifetime(observation) { while true { sleep(60) } }
case "write-pending", "write-pending-nohup", "own-sigterm-before", "own-sigterm-after":
    // A write that only a flush at the end makes durable (coalesced over an hour), then a hang until a signal.
    // `-nohup` ignores SIGHUP first, as `nohup` does; `own-sigterm-*` handle SIGTERM the way
    // swift-service-lifecycle does, before or after the first suite is opened.
    let command = arguments.first!
    let rest = Array(arguments.dropFirst())
    guard rest.count == 3 else { fail("\(command) needs a suite, a key and a value") }
    resetTerminationSignals()
    if command == "write-pending-nohup" { signal(SIGHUP, SIG_IGN) }
    func handleTermination() -> DispatchSourceSignal {
        signal(SIGTERM, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())
        source.setEventHandler {
            say("handled")
            do {
                try DefaultsShutdown.flushAll()
                say("flushed")
            } catch {
                say("flush failed: \(error)")
            }
            // Skips the atexit flush: only the program's own call can have made the write durable.
            _exit(0)
        }
        source.resume()
        // Dispatch's own handler replaces SIG_IGN once its manager thread registered the source; a SIGTERM
        // before that would be dropped.
        while sigtermHandler() == 1 { usleep(1000) }
        return source
    }
    func sigtermHandler() -> Int { signalHandlerAddress(SIGTERM) }
    let earlier = command == "own-sigterm-before" ? handleTermination() : nil
    let handlerBefore = sigtermHandler()
    let defaults = try DefaultsAdapter(
        suiteName: rest[0],
        keyStore: DefaultsKeys(),
        launchArguments: .ignored,
        writePolicy: .coalesced(within: .seconds(3600))
    )
    defaults[key: Key<String?>(rest[1])] = rest[2]
    if command == "own-sigterm-before" {
        say("sigterm-handling=\(sigtermHandler() == handlerBefore ? "kept" : "changed")")
    }
    let later = command == "own-sigterm-after" ? handleTermination() : nil
    say("written")
    withExtendedLifetime((earlier, later, defaults)) {
        while true { sleep(60) }
    }
case "own-store-pending", "own-store-exit", "own-store-flush-all":
    // A write to a store of the program's own (``JournalStore``) that only a flush at the end makes durable;
    // then a hang until a signal, `exit(0)`, or `DefaultsShutdown.flushAll()` with a second store that cannot
    // be written (its file's directory is missing) and `_exit(0)`.
    let rest = Array(arguments.dropFirst())
    guard rest.count == 3 else { fail("\(arguments.first!) needs a file, a key and a value") }
    resetTerminationSignals()
    let file = URL(fileURLWithPath: rest[0])
    let unwritable = file.deletingLastPathComponent().appendingPathComponent("no-such-directory/failing.json")
    let adapters = [unwritable, file]
        .map { file in
            DefaultsAdapter(
                store: JournalStore(file: file),
                keyStore: DefaultsKeys(),
                writePolicy: .coalesced(within: .seconds(3600))
            )
        }
    for defaults in adapters { defaults[key: Key<String?>(rest[1])] = rest[2] }
    say("written")
    switch arguments.first {
    case "own-store-exit":
        exit(0)
    case "own-store-flush-all":
        do {
            try DefaultsShutdown.flushAll()
            say("result=flushed")
        } catch {
            say("result=\(error)")
        }
        _exit(0)
    default:
        withExtendedLifetime(adapters) {
            while true { sleep(60) }
        }
    }
case "flush-all-failing":
    // Three suites that can be written and one that cannot (a file-size limit fails it as a full disk would),
    // flushed by the program's one call at its end.
    guard let prefix = arguments.dropFirst().first else { fail("flush-all-failing needs a suite prefix") }
    var suites: [DefaultsAdapter<DefaultsKeys>] = []
    for name in ["\(prefix).ok0", "\(prefix).big", "\(prefix).ok1", "\(prefix).ok2"] {
        let suite = try DefaultsAdapter(
            suiteName: name,
            keyStore: DefaultsKeys(),
            launchArguments: .ignored,
            writePolicy: .coalesced(within: .seconds(3600))
        )
        suite[key: Key<String?>("k")] = name.hasSuffix(".big") ? String(repeating: "x", count: 100_000) : "ok"
        suites.append(suite)
    }
    signal(SIGXFSZ, SIG_IGN)
    setResourceLimit(.fileSize, 20_000)
    do {
        try DefaultsShutdown.flushAll()
        say("result=flushed")
    } catch {
        say("result=\(error)")
    }
    // Skips the atexit flush, which would try the large suite again.
    _exit(0)
case "deep-codable":
    // Both ways of writing: `set` prints its error, the subscript reports a diagnostic.
    let rest = Array(arguments.dropFirst())
    guard rest.count == 3, let levels = Int(rest[2]) else { fail("deep-codable needs a suite, a kind and a depth") }
    let defaults = try DefaultsAdapter(suiteName: rest[0], keyStore: DefaultsKeys(), launchArguments: .ignored)
    DefaultsDiagnostics.setHandler { say("diagnostic=\($0.message)") }
    func attempt<Value: DefaultsSerializable>(_ value: Value) {
        do {
            try defaults.set(value, for: Key<Value?>("deep"))
            say("result=stored")
        } catch {
            say("result=\(error)")
        }
        defaults[key: Key<Value?>("deep")] = value
        say("assigned")
    }
    switch rest[1] {
    case "nest": attempt(Nest.nodes(levels))
    case "chain": attempt(Chain.links(levels))
    case "brackets": attempt(Brackets(depth: levels))
    case "wrappers": attempt(WrapperChain.wrappers(levels))
    case "swallowing": attempt(Swallowing(inner: Chain.links(levels)))
    default: fail("unknown kind \(rest[1])")
    }
    try defaults.flush()
    // Releasing a deep value recurses as well; leave before it happens.
    exit(0)
case "deep-json":
    let rest = Array(arguments.dropFirst())
    guard rest.count == 2, let levels = Int(rest[1]) else { fail("deep-json needs a suite and a depth") }
    let defaults = try DefaultsAdapter(suiteName: rest[0], keyStore: DefaultsKeys(), launchArguments: .ignored)
    DefaultsDiagnostics.setHandler { say("diagnostic=\($0.message)") }
    let json = String(repeating: "[", count: levels) + String(repeating: "]", count: levels)
    defaults[key: Key<String>("deep", default: "")] = json
    say("brackets=\(defaults[key: Key<Brackets?>("deep")].map { "\($0.depth)" } ?? "nil")")
    defaults[key: Key<String>("deep", default: "")] = "{\"node\":{\"_0\":" + json + "}}"
    say("nest=\(defaults[key: Key<Nest?>("deep")].map { "\($0.nodeCount)" } ?? "nil")")
case "hostile-archive":
    let rest = Array(arguments.dropFirst())
    guard rest.count == 2 else { fail("hostile-archive needs a suite and a case") }
    let defaults = try DefaultsAdapter(suiteName: rest[0], keyStore: DefaultsKeys(), launchArguments: .ignored)
    DefaultsDiagnostics.setHandler { say("diagnostic=\($0.message)") }
    say("result=\(HostileArchives.write(rest[1], to: defaults).map { "\($0)" } ?? "stored")")
    HostileArchives.assign(rest[1], to: defaults)
    say("assigned")
    say("hasKey=\(defaults.hasKey(Key<Data?>("thing")))")
case "read-archive":
    // Stores an archive as another program could have (of a plain thing, or of a holder of one), then reads it.
    let rest = Array(arguments.dropFirst())
    guard rest.count == 3 else { fail("read-archive needs a suite, what to store and a class to read as") }
    let defaults = try DefaultsAdapter(suiteName: rest[0], keyStore: DefaultsKeys(), launchArguments: .ignored)
    DefaultsDiagnostics.setHandler { say("diagnostic=\($0.message)") }
    let stored: NSObject = rest[1] == "holder" ? ThingHolder(holding: PlainThing(number: 7)) : PlainThing(number: 7)
    let archive = try NSKeyedArchiver.archivedData(withRootObject: stored, requiringSecureCoding: true)
    defaults[key: Key<Data?>("thing")] = archive
    say("read=\(HostileArchives.read(rest[2], from: defaults))")
case "deep-note":
    let rest = Array(arguments.dropFirst())
    guard rest.count == 2, let levels = Int(rest[1]) else { fail("deep-note needs a suite and a depth") }
    let defaults = try DefaultsAdapter(suiteName: rest[0], keyStore: DefaultsKeys(), launchArguments: .ignored)
    var note = Note(text: "0")
    for index in 1..<levels { note = Note(text: "\(index)", next: note) }
    do {
        try defaults.set(note, for: Key<Note?>("note"))
        say("result=stored")
    } catch {
        say("result=\(error)")
    }
    // Releasing the chain recurses as well; leave before it happens.
    _exit(0)
case "print-migration-types":
    guard let suite = arguments.dropFirst().first else { fail("print-migration-types needs a suite") }
    let defaults = try DefaultsAdapter(suiteName: suite, keyStore: DefaultsKeys(), launchArguments: .ignored)
    let hours = defaults[key: Key<Range<Int>?>("hours")]
    let limits = defaults[key: Key<ClosedRange<Double>?>("limits")]
    print("hours=\(hours.map { "\($0.lowerBound)..<\($0.upperBound)" } ?? "nil")")
    print("limits=\(limits.map { "\($0.lowerBound)...\($0.upperBound)" } ?? "nil")")
    print("bag=\(defaults[key: Key<Bag<String>?>("bag")].map { $0.joined(separator: ",") } ?? "nil")")
    print("tags=\(defaults[key: Key<TagSet?>("tags")].map { $0.toArray().joined(separator: ",") } ?? "nil")")
    print(
        "note=\(defaults[key: Key<Note?>("note")].map { [$0.text, $0.next?.text ?? "-"].joined(separator: ",") } ?? "nil")"
    )
    print(
        "any=\(defaults[key: Key<PropertyListValue?>("any")]?.get([String: Int].self).map { "\($0.sorted { $0.key < $1.key })" } ?? "nil")"
    )
case "edit-script":
    // Coalesced, as a program writes: a key set twice before a flush reaches the file once.
    let rest = Array(arguments.dropFirst())
    guard rest.count == 2, let script = FileManager.default.contents(atPath: rest[1]),
        let edits = try JSONSerialization.jsonObject(with: script) as? [[String]]
    else { fail("edit-script needs a suite and a JSON file of edits") }
    let defaults = try DefaultsAdapter(suiteName: rest[0], keyStore: DefaultsKeys(), launchArguments: .ignored)
    for edit in edits {
        switch (edit.first, edit.count) {
        case ("set", 3): defaults[key: Key<String?>(edit[1])] = edit[2]
        case ("remove", 2): defaults[key: Key<String?>(edit[1])] = nil
        case ("flush", 1): try defaults.flush()
        default: fail("unknown edit \(edit)")
        }
    }
    try defaults.flush()
    say("done")
default:
    fail("unknown command \(arguments.first ?? "(none)")")
}
