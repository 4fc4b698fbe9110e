#if os(Linux)
import Benchmark
import Foundation
import TypedDefaults

// Raw Foundation `UserDefaults` next to TypedDefaults, on real suites on disk.
//
// Every benchmark opens its own suite in a fresh temporary directory (never ~/.config), seeded with the
// same keys, and removes the directory in its teardown. Foundation on Linux (CoreFoundation) treats a
// suite name that is an absolute path as the path of the file without ".plist", which is how the raw
// Foundation suites land in the temporary directory; TypedDefaults does the same through `directory:`.
//
// Set TYPED_DEFAULTS_BENCH_SMOKE=1 for a quick pass in CI (one warmup and five measured iterations each, fewer
// for the long benchmarks).
// A benchmark that cannot do its work (setup, a write, or the check of the file afterwards fails) ends its
// process with a failure status, so the run exits non-zero; see `fail(_:_:_:)`.

let benchmarks: @Sendable () -> Void = {
    if let writer = ProcessInfo.processInfo.environment[latencyWriterVariable] { runLatencyWriter(writer) }
    // Tolerances for `swift package benchmark thresholds check` against the thresholds checked in under
    // Thresholds/: this is a shared 2-core VM, so time and throughput may vary by a quarter before they count
    // as a regression; allocations are deterministic, so they may not grow.
    // They are given to the configurations that measure both (naming a metric a benchmark lacks makes the
    // plugin warn on every run).
    let tolerances: [BenchmarkMetric: BenchmarkThresholds] = [
        .wallClock: BenchmarkThresholds(relative: BenchmarkThresholds.Relative.relaxed),
        // Throughput is the same measurement as time, inverted; without a tolerance any noise fails the check.
        .throughput: BenchmarkThresholds(relative: BenchmarkThresholds.Relative.relaxed),
        .mallocCountTotal: BenchmarkThresholds(relative: [.p50: 0.0]),
    ]
    if let reader = ProcessInfo.processInfo.environment[firstReadVariable] { runFirstRead(reader) }
    let smoke =
        ProcessInfo.processInfo.environment["TYPED_DEFAULTS_BENCH_SMOKE"].map { !$0.isEmpty && $0 != "0" }
        ?? false
    let metrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal]

    // Writes touch the file (a Foundation `set` re-reads it; `synchronize()` and a write-through write rewrite
    // and sync it): one per iteration. Reads are fast: a thousand per iteration, so the results marked * in
    // the output are per read.
    let writes = Benchmark.Configuration(
        metrics: metrics,
        warmupIterations: smoke ? 1 : 10,
        scalingFactor: .one,
        maxDuration: smoke ? .milliseconds(200) : .seconds(2),
        maxIterations: smoke ? 5 : 5_000,
        thresholds: tolerances
    )
    let reads = Benchmark.Configuration(
        metrics: metrics,
        warmupIterations: smoke ? 1 : 10,
        scalingFactor: .kilo,
        maxDuration: smoke ? .milliseconds(200) : .seconds(2),
        maxIterations: smoke ? 5 : 5_000,
        thresholds: tolerances
    )

    // MARK: Foundation

    suiteBenchmark("Foundation set", configuration: writes) { suite in
        Counter(defaults: suite.foundationDefaults())
    } body: { benchmark, state in
        for _ in benchmark.scaledIterations {
            state.next &+= 1
            state.defaults.set(state.next, forKey: "k")
        }
    }

    suiteBenchmark("Foundation set+synchronize", configuration: writes) { suite in
        Counter(defaults: suite.foundationDefaults())
    } body: { benchmark, state in
        for _ in benchmark.scaledIterations {
            state.next &+= 1
            state.defaults.set(state.next, forKey: "k")
            blackHole(state.defaults.synchronize())
        }
    } verify: { suite, state in
        try suite.verifyFile(holds: state.next)
    }

    suiteBenchmark("Foundation get Int", configuration: reads) { suite in
        let defaults = suite.foundationDefaults()
        guard defaults.integer(forKey: "k") == SuiteFixture.seededValue else {
            throw BenchmarkSetupError("Foundation does not read the seeded value of \"k\"")
        }
        return defaults
    } body: { benchmark, defaults in
        for _ in benchmark.scaledIterations {
            blackHole(defaults.integer(forKey: "k"))
        }
    }

    // MARK: TypedDefaults

    // `.immediate`: the value is on disk (synced, renamed into place) when `set` returns. The library's
    // default policy coalesces writes instead, which would not measure a write-through write.
    suiteBenchmark("TypedDefaults set Int (write-through)", configuration: writes) { suite in
        TypedState(adapter: try suite.adapter(writePolicy: .immediate))
    } body: { benchmark, state in
        for _ in benchmark.scaledIterations {
            state.next &+= 1
            try state.adapter.set(state.next, for: state.key)
        }
    } verify: { suite, state in
        // Also writes the backup copy the last write scheduled, which would otherwise recreate the suite's
        // directory after the teardown removed it.
        try state.adapter.flush()
        try suite.verifyFile(holds: state.next)
    }

    // The default policy: a write lands in memory and in the suite's journal, and the file is rebuilt within 100 ms,
    // together with the writes around it. A thousand writes per iteration, so the time is per write; the file
    // writes that the iterations caused are counted.
    suiteBenchmark("TypedDefaults set Int (coalesced)", configuration: reads) { suite in
        TypedState(adapter: try suite.adapter())
    } body: { benchmark, state in
        for _ in benchmark.scaledIterations {
            state.next &+= 1
            state.adapter[key: state.key] = state.next
        }
    } verify: { suite, state in
        try state.adapter.flush()
        try suite.verifyFile(holds: state.next)
    }

    // A burst of 1,000 coalesced writes and a flush: how long until all are durable, and how many times the
    // file was written for them (the "File writes" metric, per burst).
    let fileWrites = BenchmarkMetric.custom("File writes", polarity: .prefersSmaller, useScalingFactor: false)
    suiteBenchmark(
        "TypedDefaults 1,000-write burst to durable",
        configuration: Benchmark.Configuration(
            metrics: metrics + [fileWrites],
            warmupIterations: smoke ? 1 : 3,
            scalingFactor: .one,
            maxDuration: smoke ? .milliseconds(200) : .seconds(2),
            maxIterations: smoke ? 5 : 200
        )
    ) { suite in
        TypedState(adapter: try suite.adapter(writePolicy: .coalesced(within: .seconds(1))))
    } body: { benchmark, state in
        let before = (state.adapter.store as? FileStore)?.fileWriteCount ?? 0
        for _ in 0..<1_000 {
            state.next &+= 1
            state.adapter[key: state.key] = state.next
        }
        try state.adapter.flush()
        benchmark.measurement(fileWrites, ((state.adapter.store as? FileStore)?.fileWriteCount ?? 0) - before)
    } verify: { suite, state in
        try suite.verifyFile(holds: state.next)
    }

    // The library's default write policy; reads do not depend on it.
    suiteBenchmark("TypedDefaults get Int", configuration: reads) { suite in
        let state = TypedState(adapter: try suite.adapter())
        guard state.adapter[key: state.key] == SuiteFixture.seededValue else {
            throw BenchmarkSetupError("TypedDefaults does not read the seeded value of \"k\"")
        }
        return state
    } body: { benchmark, state in
        for _ in benchmark.scaledIterations {
            blackHole(state.adapter[key: state.key])
        }
    }

    registerValueBenchmarks(reads: reads, writes: writes)
    registerScaleBenchmarks(smoke: smoke, reads: reads)
    registerObservationBenchmarks(smoke: smoke)
}

// MARK: - Fixtures

/// A suite in a temporary directory of its own, seeded with the same keys for every benchmark.
final class SuiteFixture {
    /// The value "k" holds before a benchmark starts (not the key's default, so reads really read it).
    static let seededValue = 42
    static let seedKeyCount = 10
    /// The names of the keys every suite starts with besides "seed0"..."seed9" (see ``Seed``).
    static let seededKeyNames = [
        "k", "k2", "name", "date", "rawDate", "url", "rawURL", "record", "rawRecord", "mode", "list",
    ]

    let directory: URL
    let suiteName: String
    /// How many extra string keys ("bulk.setting.identifier.000000"...) the suite holds.
    let bulkKeyCount: Int

    /// The suite name that makes Foundation on Linux use `<directory>/<suiteName>.plist`.
    var foundationSuiteName: String { directory.path + "/" + suiteName }

    /// The suite's file, for Foundation and TypedDefaults alike.
    var file: String { foundationSuiteName + ".plist" }

    init(bulkKeys: Int = 0) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("typed-defaults-bench-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        suiteName = "bench-\(UUID().uuidString)"
        bulkKeyCount = bulkKeys
        try seed()
    }

    /// The name of the `index`th bulk key: 30 characters.
    static func bulkKey(_ index: Int) -> String {
        "bulk.setting.identifier." + String(String(1_000_000 + index).dropFirst())
    }

    /// The value of the `index`th bulk key: 30 characters.
    static func bulkValue(_ index: Int) -> String {
        "value of bulk setting #" + String(String(1_000_000 + index).dropFirst()) + "."
    }

    /// Ten keys of assorted types, "k", and the keys of ``seededKeyNames`` in the forms of ``Seed``, written and
    /// synchronized through Foundation.
    ///
    /// Bulk keys are written to the file first, as an XML property list, and Foundation then opens the suite,
    /// adds the other keys, and writes the whole file itself. Setting 10,000 keys one by one through Foundation
    /// takes about 5 s (every `set` costs in proportion to the keys already there).
    private func seed() throws {
        if bulkKeyCount > 0 {
            var bulk: [String: String] = [:]
            for index in 0..<bulkKeyCount { bulk[Self.bulkKey(index)] = Self.bulkValue(index) }
            let data = try PropertyListSerialization.data(fromPropertyList: bulk, format: .xml, options: 0)
            try data.write(to: URL(fileURLWithPath: file), options: .atomic)
        }
        let defaults = foundationDefaults()
        for index in 0..<Self.seedKeyCount {
            switch index % 4 {
            case 0: defaults.set(index * 1_000, forKey: "seed\(index)")
            case 1: defaults.set("seed value number \(index)", forKey: "seed\(index)")
            case 2: defaults.set(Double(index) + 0.25, forKey: "seed\(index)")
            default: defaults.set(index % 2 == 0, forKey: "seed\(index)")
            }
        }
        defaults.set(Self.seededValue, forKey: "k")
        defaults.set(Seed.k2, forKey: "k2")
        defaults.set(Seed.string, forKey: "name")
        defaults.set(Seed.dateText, forKey: "date")
        defaults.set(Seed.rawDate, forKey: "rawDate")
        defaults.set(Seed.url.absoluteString, forKey: "url")
        defaults.set(Seed.url, forKey: "rawURL")
        defaults.set(try Seed.recordJSON(), forKey: "record")
        defaults.set(try JSONEncoder().encode(Seed.record), forKey: "rawRecord")
        defaults.set(Seed.mode.rawValue, forKey: "mode")
        defaults.set(Seed.list, forKey: "list")
        guard defaults.synchronize() else { throw BenchmarkSetupError("could not write the seeded suite") }
        try verifyFile(holds: Self.seededValue)
    }

    /// The suite's file on disk, as a dictionary.
    func fileContents() throws -> [String: Any] {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw BenchmarkSetupError("the suite is not at \(file)")
        }
        let plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        guard let dictionary = plist as? [String: Any] else {
            throw BenchmarkSetupError("\(file) does not hold a dictionary")
        }
        return dictionary
    }

    /// Checks that the suite's file on disk holds `k == value` and still every seeded key.
    func verifyFile(holds value: Int) throws {
        let dictionary = try fileContents()
        guard (dictionary["k"] as? NSNumber)?.intValue == value else {
            throw BenchmarkSetupError("\(file) holds k = \(dictionary["k"] ?? "nothing"), expected \(value)")
        }
        try verifySeededKeys(in: dictionary)
    }

    /// Checks that the suite's file on disk holds what `matches` accepts for `key`, and still every seeded key.
    func verifyFile(_ key: String, expected: @autoclosure () -> String, matches: (Any?) -> Bool) throws {
        let dictionary = try fileContents()
        guard matches(dictionary[key]) else {
            throw BenchmarkSetupError("\(file) holds \(key) = \(dictionary[key] ?? "nothing"), expected \(expected())")
        }
        try verifySeededKeys(in: dictionary)
    }

    private func verifySeededKeys(in dictionary: [String: Any]) throws {
        let seeds = (0..<Self.seedKeyCount).filter { dictionary["seed\($0)"] != nil }.count
        guard seeds == Self.seedKeyCount else {
            throw BenchmarkSetupError("\(file) lost seeded keys: \(seeds) of \(Self.seedKeyCount) left")
        }
        let missing = Self.seededKeyNames.filter { dictionary[$0] == nil }
        guard missing.isEmpty else {
            throw BenchmarkSetupError("\(file) lost seeded keys: \(missing.joined(separator: ", "))")
        }
        let bulk = dictionary.keys.filter { $0.hasPrefix("bulk.") }.count
        guard bulk == bulkKeyCount else {
            throw BenchmarkSetupError("\(file) holds \(bulk) bulk keys, expected \(bulkKeyCount)")
        }
    }

    func foundationDefaults() -> UserDefaults {
        UserDefaults(suiteName: foundationSuiteName)!
    }

    /// An adapter on this suite; `writePolicy: nil` takes the library's default.
    func adapter(writePolicy: WritePolicy? = nil) throws -> DefaultsAdapter<DefaultsKeys> {
        if let writePolicy {
            return try DefaultsAdapter(
                suiteName: suiteName,
                directory: directory,
                keyStore: DefaultsKeys(),
                launchArguments: .ignored,
                writePolicy: writePolicy
            )
        }
        return try DefaultsAdapter(
            suiteName: suiteName,
            directory: directory,
            keyStore: DefaultsKeys(),
            launchArguments: .ignored
        )
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}

/// A Foundation suite and the next value to write, so every write stores a new value.
final class Counter {
    let defaults: UserDefaults
    var next = SuiteFixture.seededValue
    init(defaults: UserDefaults) { self.defaults = defaults }
}

/// A TypedDefaults adapter, its key, and the next value to write.
final class TypedState {
    let adapter: DefaultsAdapter<DefaultsKeys>
    let key = Key<Int>("k", default: 0)
    var next = SuiteFixture.seededValue
    init(adapter: DefaultsAdapter<DefaultsKeys>) { self.adapter = adapter }
}

struct BenchmarkSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Ends the benchmark process with a failure status.
///
/// package-benchmark 1.38.1 reports an error thrown by a setup hook or a benchmark (`benchmark.error`) but
/// still exits 0 from a plain `run`; a benchmark process that exits non-zero does fail the run (exit 1,
/// "benchmark job(s) failed during runtime"). A smoke run in CI must fail when a benchmark cannot do its
/// work, so every failure here ends the process.
func fail(_ benchmark: String, _ what: String, _ error: any Error) -> Never {
    FileHandle.standardError.write(Data("error: \(benchmark): \(what) failed: \(error)\n".utf8))
    exit(EXIT_FAILURE)
}

/// Holds one benchmark's fixture between its setup, its runs and its teardown.
final class StateHolder<State> {
    var fixture: SuiteFixture?
    var state: State?
}

/// Registers a benchmark on a fresh seeded suite (with `bulkKeys` extra string keys).
///
/// `makeState` runs in the setup (not measured), `body` is measured, and the teardown runs `verify` (checks
/// of what the benchmark left on disk) and removes the suite's temporary directory. Any error ends the
/// process with a failure status (see ``fail(_:_:_:)``).
func suiteBenchmark<State>(
    _ name: String,
    configuration: Benchmark.Configuration,
    bulkKeys: Int = 0,
    makeState: @escaping (SuiteFixture) throws -> State,
    body: @escaping (Benchmark, State) throws -> Void,
    verify: ((SuiteFixture, State) throws -> Void)? = nil
) {
    let holder = StateHolder<State>()
    Benchmark(name, configuration: configuration) { (benchmark: Benchmark) in
        guard let state = holder.state else { fail(name, "benchmark", BenchmarkSetupError("setup did not run")) }
        do {
            try body(benchmark, state)
        } catch {
            fail(name, "benchmark", error)
        }
    } setup: {
        do {
            let fixture = try SuiteFixture(bulkKeys: bulkKeys)
            holder.fixture = fixture
            holder.state = try makeState(fixture)
        } catch {
            holder.fixture?.remove()
            fail(name, "setup", error)
        }
    } teardown: {
        guard let fixture = holder.fixture else { return }
        defer {
            holder.state = nil
            holder.fixture = nil
            fixture.remove()
        }
        if let verify, let state = holder.state {
            do {
                try verify(fixture, state)
            } catch {
                fixture.remove()
                fail(name, "verification after the run", error)
            }
        }
    }
}
#else
// TypedDefaults' file store exists on Linux only: on Apple platforms suites live in Foundation's UserDefaults (Docs/Platforms.md).
import Benchmark

let benchmarks: @Sendable () -> Void = {
    print("These benchmarks measure the Linux file store beside Linux Foundation; nothing to measure here.")
}
#endif
