// Figures for Docs/SharedSettings.md, against a PostgreSQL server you started (never run by CI):
//
//     swift build -c release --product PostgresBenchmarks --product fleet-settings
//     .build/release/PostgresBenchmarks postgres://USER@127.0.0.1:PORT/DATABASE ["RESTART COMMAND"]
//
// The restart command (run with /bin/sh, such as `pg_ctl -D DIR -m fast -w restart`) is for the catch-up figure;
// without it that figure is skipped. Modify throughput runs `fleet-settings` processes from the same build folder.

#if os(Linux)
import Foundation
import Synchronization
import TypedDefaults
import TypedDefaultsPostgres

#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: PostgresBenchmarks URL [RESTART-COMMAND]\n".utf8))
    exit(64)
}
let url = arguments[1]
let restartCommand = arguments.count > 2 ? arguments[2] : nil
let scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("pg-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
let run = UUID().uuidString.prefix(8)

func options() -> PostgresStore.Options {
    var options = PostgresStore.Options()
    options.localCopyDirectory = scratch.appendingPathComponent(UUID().uuidString)
    return options
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func report(_ name: String, _ value: String) {
    print(String(name.padding(toLength: 58, withPad: " ", startingAt: 0)) + value)
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]  // portability: below `sorted.count`
}

let count = Key<Int>("count", default: 0)

// MARK: Reads

do {
    let reads = 1_000_000
    let pg = DefaultsAdapter(
        store: try PostgresStore(url: url, suite: "bench-read-\(run)", options: options()),
        keyStore: DefaultsKeys()
    )
    let file = try DefaultsAdapter(suiteName: "bench-read-\(run)", directory: scratch, keyStore: DefaultsKeys())
    try pg.set(42, for: count)
    try file.set(42, for: count)
    for (name, defaults) in [("PostgresStore", pg), ("FileStore", file)] {
        var sum = 0
        let clock = ContinuousClock()
        let elapsed = clock.measure { for _ in 0..<reads { sum &+= defaults[count] } }
        precondition(sum == 42 * reads)
        report("read of an Int key, \(name)", String(format: "%.0f ns", seconds(elapsed) / Double(reads) * 1e9))
    }
}

// MARK: Write to another instance's callback

do {
    let suite = "bench-latency-\(run)"
    let writer = DefaultsAdapter(
        store: try PostgresStore(url: url, suite: suite, options: options()),
        keyStore: DefaultsKeys(),
        writePolicy: .immediate
    )
    let listener = DefaultsAdapter(
        store: try PostgresStore(url: url, suite: suite, options: options()),
        keyStore: DefaultsKeys()
    )
    let arrivals = Mutex<[Int: ContinuousClock.Instant]>([:])
    let observation = listener.observe(count, options: [.synchronous]) { change in
        let now = ContinuousClock.now
        arrivals.withLock { $0[change.newValue] = now }
    }
    var latencies: [Double] = []
    for value in 1...500 {
        let started = ContinuousClock.now
        try writer.set(value, for: count)
        while arrivals.withLock({ $0[value] }) == nil { usleep(20) }
        latencies.append(seconds(arrivals.withLock { $0[value]! } - started))
    }
    observation.invalidate()
    latencies.sort()
    report(
        "write (committed) to another instance's callback",
        String(format: "p50 %.2f ms, p99 %.2f ms", percentile(latencies, 0.5) * 1e3, percentile(latencies, 0.99) * 1e3)
    )
}

// MARK: Sustained coalesced writes

do {
    let defaults = DefaultsAdapter(
        store: try PostgresStore(url: url, suite: "bench-coalesced-\(run)", options: options()),
        keyStore: DefaultsKeys()
    )
    let writes = 200_000
    let started = ContinuousClock.now
    for value in 1...writes { try defaults.set(value, for: count) }
    try defaults.flush()
    let elapsed = seconds(ContinuousClock.now - started)
    report("coalesced writes, flushed at the end", String(format: "%.0f writes/s", Double(writes) / elapsed))
}

// MARK: Modify throughput across processes

let fleetSettings = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appendingPathComponent("fleet-settings").path
for processes in [1, 4, 8] {
    let suite = "bench-modify-\(processes)-\(run)"
    let each = 2_000 / processes
    let started = ContinuousClock.now
    var children: [pid_t] = []
    for _ in 0..<processes {
        var pid: pid_t = 0
        let words = [fleetSettings, "--url", url, "--suite", suite, "increment", "count", "\(each)"]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] =
            ProcessInfo.processInfo.environment.map { strdup("\($0)=\($1)") } + [nil]
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        #else
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        precondition(posix_spawn(&pid, fleetSettings, &actions, nil, argv, envp) == 0, "cannot run \(fleetSettings)")
        posix_spawn_file_actions_destroy(&actions)
        for word in argv + envp { free(word) }
        children.append(pid)
    }
    for pid in children {
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }
    let elapsed = seconds(ContinuousClock.now - started)
    let check = try PostgresStore(url: url, suite: suite, options: options())
    precondition(check.value(forKey: "count") == .integer(Int64(each * processes)), "count is not exact")
    report(
        "modify { $0 += 1 }, \(processes) process\(processes == 1 ? "" : "es") on one key",
        String(
            format: "%.0f modifies/s (%d in %.1f s, incl. process start)",
            Double(each * processes) / elapsed,
            each * processes,
            elapsed
        )
    )
}

// MARK: Catching up after a restart

if let restartCommand {
    let suite = "bench-restart-\(run)"
    let writer = DefaultsAdapter(
        store: try PostgresStore(url: url, suite: suite, options: options()),
        keyStore: DefaultsKeys(),
        writePolicy: .immediate
    )
    let listener = DefaultsAdapter(
        store: try PostgresStore(url: url, suite: suite, options: options()),
        keyStore: DefaultsKeys()
    )
    try writer.set(1, for: count)
    while listener[count] != 1 { usleep(100) }
    guard system(restartCommand) == 0 else { fatalError("the restart command failed") }
    let back = ContinuousClock.now
    try writer.set(2, for: count)
    let committed = ContinuousClock.now
    while listener[count] != 2 { usleep(100) }
    let heard = ContinuousClock.now
    report(
        "after a restart: first commit / other instance has it",
        String(
            format: "%.0f ms / %.0f ms after the server is back",
            seconds(committed - back) * 1e3,
            seconds(heard - back) * 1e3
        )
    )
}

try? FileManager.default.removeItem(at: scratch)
exit(0)
#else
// TypedDefaults' file store exists on Linux only: on Apple platforms suites live in Foundation's UserDefaults (Docs/Platforms.md).
print("PostgresBenchmarks compares PostgresStore with the Linux file store; run it on Linux.")
#endif
