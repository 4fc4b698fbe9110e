#if os(Linux)
import Benchmark
import Foundation
import TypedDefaults

// Larger suites, a new process's first read, and a long run of mixed operations.

/// The environment variable that makes this executable the child of the first-read benchmarks.
let firstReadVariable = "TYPED_DEFAULTS_BENCH_FIRST_READ"

/// The child process: opens the suite, reads "k" once, checks it is the seeded value, and exits.
///
/// `specification` is `<mode>\n<directory>\n<suite name>`, where mode is `foundation`, `typed`, or `none` (exit
/// without opening anything: the cost of starting the process alone).
func runFirstRead(_ specification: String) -> Never {
    let parts = specification.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard parts.count == 3 else {
        fail("first read", "reading \(firstReadVariable)", BenchmarkSetupError(specification))
    }
    let value: Int
    switch parts[0] {
    case "none":
        exit(EXIT_SUCCESS)
    case "foundation":
        value = UserDefaults(suiteName: parts[1] + "/" + parts[2])!.integer(forKey: "k")
    case "typed":
        do {
            let adapter = try DefaultsAdapter(
                suiteName: parts[2],
                directory: URL(fileURLWithPath: parts[1]),
                keyStore: DefaultsKeys(),
                launchArguments: .ignored
            )
            value = adapter[key: Key<Int>("k", default: 0)]
        } catch {
            fail("first read", "opening the suite", error)
        }
    default:
        fail("first read", "reading \(firstReadVariable)", BenchmarkSetupError("unknown mode \(parts[0])"))
    }
    guard value == SuiteFixture.seededValue else {
        fail("first read", "reading \"k\"", BenchmarkSetupError("read \(value), not the seeded value"))
    }
    exit(EXIT_SUCCESS)
}

/// Starts this executable as a first-read child and waits for it.
///
/// With `posix_spawn` and `waitpid`, not Foundation's `Process`: on Linux, `Process.waitUntilExit()` polls every
/// 50 ms, which would add up to 50 ms to every measurement.
final class FirstReadChild {
    let executable: String
    let environment: [String]

    init(mode: String, suite: SuiteFixture) throws {
        #if os(Linux)
        executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        #else
        executable = Bundle.main.executablePath ?? CommandLine.arguments[0]
        #endif
        var environment = ProcessInfo.processInfo.environment
        environment[firstReadVariable] = "\(mode)\n\(suite.directory.path)\n\(suite.suiteName)"
        self.environment = environment.map { "\($0.key)=\($0.value)" }
    }

    /// Runs the child once; throws unless it exits with status 0 (it checks the value it read).
    func run() throws {
        let arguments = [strdup(executable)] + [nil]
        let variables = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in arguments { free(pointer) }
            for pointer in variables { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, nil, nil, arguments, variables)
        guard spawned == 0 else { throw BenchmarkSetupError("could not start the child: posix_spawn error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw BenchmarkSetupError("waitpid failed: errno \(errno)") }
        }
        // Exited (the low seven bits are 0) with status 0.
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
            throw BenchmarkSetupError("the child process ended with wait status \(status)")
        }
    }
}

/// A TypedDefaults adapter, the key written, the key read, and the next value to write.
final class SetGetState {
    let adapter: DefaultsAdapter<DefaultsKeys>
    let written = Key<Int>("k", default: 0)
    let read = Key<Int>("k2", default: 0)
    var next = SuiteFixture.seededValue
    init(adapter: DefaultsAdapter<DefaultsKeys>) { self.adapter = adapter }
}

/// The adapter and keys of the mixed-operations benchmark, and the values it wrote last.
final class MixedState {
    let adapter: DefaultsAdapter<DefaultsKeys>
    let int = Key<Int>("k", default: 0)
    let string = Key<String>("name", default: "")
    let mode = Key<Mode>("mode", default: .a)
    let record = Key<Record>("record", default: Written.records[0])
    var nextInt = SuiteFixture.seededValue
    var lastString = Seed.string
    var lastMode = Seed.mode
    var lastRecord = Seed.record
    init(adapter: DefaultsAdapter<DefaultsKeys>) { self.adapter = adapter }
}

func registerScaleBenchmarks(smoke: Bool, reads: Benchmark.Configuration) {
    registerLargeSuiteBenchmarks(smoke: smoke, reads: reads)
    registerFirstReadBenchmarks(smoke: smoke)
    registerMixedOperationsBenchmark(smoke: smoke)
}

// MARK: - A write and a read in suites of 1,000 and 10,000 keys

/// A write followed by a read, in a suite seeded with `keys` extra string keys of 30 characters (names and values).
///
/// Foundation copies the whole domain again on the first read after a write (about 0.3 ms at 1,000 keys and
/// several ms at 10,000), so its benchmark does one operation per iteration and few iterations. TypedDefaults
/// (default, coalesced policy) does a thousand per iteration; its file is rewritten in the background, at most
/// every 100 ms, while the benchmark runs.
private func registerLargeSuiteBenchmarks(smoke: Bool, reads: Benchmark.Configuration) {
    for (keys, label, iterations) in [(1_000, "1,000", 500), (10_000, "10,000", 60)] {
        suiteBenchmark(
            "Foundation set+get, \(label) keys",
            configuration: Benchmark.Configuration(
                metrics: [.wallClock, .throughput, .mallocCountTotal],
                warmupIterations: smoke ? 1 : 3,
                scalingFactor: .one,
                maxDuration: smoke ? .milliseconds(200) : .seconds(2),
                maxIterations: smoke ? 2 : iterations
            ),
            bulkKeys: keys
        ) { suite in
            let state = Counter(defaults: suite.foundationDefaults())
            try expectSeeded(state.defaults.integer(forKey: "k2"), "Foundation's \"k2\"") { $0 == Seed.k2 }
            let last = SuiteFixture.bulkKey(keys - 1)
            try expectSeeded(state.defaults.string(forKey: last), "Foundation's \"\(last)\"") {
                $0 == SuiteFixture.bulkValue(keys - 1)
            }
            return state
        } body: { benchmark, state in
            for _ in benchmark.scaledIterations {
                state.next &+= 1
                state.defaults.set(state.next, forKey: "k")
                blackHole(state.defaults.integer(forKey: "k2"))
            }
        } verify: { _, state in
            try expectWritten(state.defaults.integer(forKey: "k"), "Foundation's \"k\"") { $0 == state.next }
        }

        suiteBenchmark("TypedDefaults set+get, \(label) keys (coalesced)", configuration: reads, bulkKeys: keys) {
            suite in
            let state = SetGetState(adapter: try suite.adapter())
            try expectSeeded(state.adapter[key: state.read], "TypedDefaults' \"k2\"") { $0 == Seed.k2 }
            let last = SuiteFixture.bulkKey(keys - 1)
            try expectSeeded(state.adapter[key: Key<String?>(last)], "TypedDefaults' \"\(last)\"") {
                $0 == SuiteFixture.bulkValue(keys - 1)
            }
            return state
        } body: { benchmark, state in
            for _ in benchmark.scaledIterations {
                state.next &+= 1
                state.adapter[key: state.written] = state.next
                blackHole(state.adapter[key: state.read])
            }
        } verify: { suite, state in
            try state.adapter.flush()
            try suite.verifyFile(holds: state.next)
        }
    }
}

// MARK: - The first read in a new process

/// Each iteration starts this executable again as a child that opens a suite of 10,000 extra keys, reads one key
/// and exits, and waits for it: the time includes starting and ending the process (see the baseline, which
/// starts the same child and exits before opening anything).
private func registerFirstReadBenchmarks(smoke: Bool) {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock],
        warmupIterations: smoke ? 0 : 1,
        scalingFactor: .one,
        maxDuration: .seconds(smoke ? 10 : 60),
        maxIterations: smoke ? 2 : 20
    )
    for (name, mode, keys) in [
        ("New process without a read (baseline)", "none", 0),
        ("Foundation first read in a new process, 10,000 keys", "foundation", 10_000),
        ("TypedDefaults first read in a new process, 10,000 keys", "typed", 10_000),
    ] {
        suiteBenchmark(name, configuration: configuration, bulkKeys: keys) { suite in
            // The child checks that it reads the seeded value of "k" and fails otherwise.
            let child = try FirstReadChild(mode: mode, suite: suite)
            try child.run()
            return child
        } body: { benchmark, child in
            for _ in benchmark.scaledIterations {
                try child.run()
            }
        }
    }
}

// MARK: - A million mixed operations

/// A million operations per iteration, cycling through reads and coalesced writes of an Int, a String, an enum and
/// a Codable key, to show that peak resident memory stays flat from one iteration to the next.
private func registerMixedOperationsBenchmark(smoke: Bool) {
    let operations = smoke ? 10_000 : 1_000_000
    suiteBenchmark(
        "TypedDefaults 1M mixed operations",
        configuration: Benchmark.Configuration(
            metrics: [.peakMemoryResident, .wallClock],
            warmupIterations: smoke ? 0 : 1,
            scalingFactor: .one,
            maxDuration: .seconds(smoke ? 10 : 120),
            maxIterations: smoke ? 1 : 5
        )
    ) { suite in
        let state = MixedState(adapter: try suite.adapter())
        try expectSeeded(state.adapter[key: state.int], "TypedDefaults' \"k\"") { $0 == SuiteFixture.seededValue }
        try expectSeeded(state.adapter[key: state.string], "TypedDefaults' \"name\"") { $0 == Seed.string }
        try expectSeeded(state.adapter[key: state.mode], "TypedDefaults' \"mode\"") { $0 == Seed.mode }
        try expectSeeded(state.adapter[key: state.record], "TypedDefaults' \"record\"") { $0 == Seed.record }
        return state
    } body: { _, state in
        let adapter = state.adapter
        var nextInt = state.nextInt
        var string = 0
        var mode = 0
        var record = 0
        for operation in 0..<operations {
            switch operation & 7 {
            case 0: blackHole(adapter[key: state.int])
            case 1:
                nextInt &+= 1
                adapter[key: state.int] = nextInt
            case 2: blackHole(adapter[key: state.string])
            case 3:
                string = (operation >> 3) & 15
                adapter[key: state.string] = Written.strings[string]
            case 4: blackHole(adapter[key: state.mode])
            case 5:
                mode = (operation >> 3) & 15
                adapter[key: state.mode] = Written.modes[mode]
            case 6: blackHole(adapter[key: state.record])
            default:
                record = (operation >> 3) & 15
                adapter[key: state.record] = Written.records[record]
            }
        }
        state.nextInt = nextInt
        state.lastString = Written.strings[string]
        state.lastMode = Written.modes[mode]
        state.lastRecord = Written.records[record]
    } verify: { suite, state in
        try state.adapter.flush()
        try suite.verifyFile(holds: state.nextInt)
        try suite.verifyFile("name", expected: state.lastString) { $0 as? String == state.lastString }
        try suite.verifyFile("mode", expected: state.lastMode.rawValue) { $0 as? String == state.lastMode.rawValue }
        try suite.verifyFile("record", expected: "\(state.lastRecord)") { stored in
            guard let text = stored as? String else { return false }
            return (try? JSONDecoder().decode(Record.self, from: Data(text.utf8))) == state.lastRecord
        }
    }
}
#endif
