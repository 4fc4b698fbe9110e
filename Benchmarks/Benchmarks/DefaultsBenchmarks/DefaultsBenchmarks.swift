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
// Set TYPED_DEFAULTS_BENCH_SMOKE=1 for a quick pass (a handful of iterations per benchmark) in CI.

let benchmarks: @Sendable () -> Void = {
    let smoke = ProcessInfo.processInfo.environment["TYPED_DEFAULTS_BENCH_SMOKE"].map { !$0.isEmpty && $0 != "0" }
        ?? false
    let metrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal]

    // Writes are slow (each one re-reads, and with synchronize also rewrites, the suite's file): one per
    // iteration. Reads are fast: a thousand per iteration, so results are per read (marked * in the output).
    let writes = Benchmark.Configuration(
        metrics: metrics,
        warmupIterations: smoke ? 1 : 10,
        scalingFactor: .one,
        maxDuration: smoke ? .milliseconds(200) : .seconds(2),
        maxIterations: smoke ? 5 : 5_000
    )
    let reads = Benchmark.Configuration(
        metrics: metrics,
        warmupIterations: smoke ? 1 : 10,
        scalingFactor: .kilo,
        maxDuration: smoke ? .milliseconds(200) : .seconds(2),
        maxIterations: smoke ? 5 : 5_000
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

    suiteBenchmark("TypedDefaults set Int (write-through)", configuration: writes) { suite in
        TypedState(adapter: try suite.adapter())
    } body: { benchmark, state in
        for _ in benchmark.scaledIterations {
            state.next &+= 1
            try state.adapter.set(state.next, for: state.key)
        }
    }

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
}

// MARK: - Fixtures

/// A suite in a temporary directory of its own, seeded with the same keys for every benchmark.
final class SuiteFixture {
    /// The value "k" holds before a benchmark starts (not the key's default, so reads really read it).
    static let seededValue = 42

    let directory: URL
    let suiteName: String

    /// The suite name that makes Foundation on Linux use `<directory>/<suiteName>.plist`.
    var foundationSuiteName: String { directory.path + "/" + suiteName }

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("typed-defaults-bench-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        suiteName = "bench-\(UUID().uuidString)"
        try seed()
    }

    /// Ten keys of assorted types plus "k", written and synchronized through Foundation.
    private func seed() throws {
        let defaults = foundationDefaults()
        for index in 0..<10 {
            switch index % 4 {
            case 0: defaults.set(index * 1_000, forKey: "seed\(index)")
            case 1: defaults.set("seed value number \(index)", forKey: "seed\(index)")
            case 2: defaults.set(Double(index) + 0.25, forKey: "seed\(index)")
            default: defaults.set(index % 2 == 0, forKey: "seed\(index)")
            }
        }
        defaults.set(Self.seededValue, forKey: "k")
        guard defaults.synchronize() else { throw BenchmarkSetupError("could not write the seeded suite") }
        let file = foundationSuiteName + ".plist"
        guard FileManager.default.fileExists(atPath: file) else {
            throw BenchmarkSetupError("the seeded suite is not at \(file)")
        }
    }

    func foundationDefaults() -> UserDefaults {
        UserDefaults(suiteName: foundationSuiteName)!
    }

    func adapter() throws -> DefaultsAdapter<DefaultsKeys> {
        try DefaultsAdapter(
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
    var next = 0
    init(defaults: UserDefaults) { self.defaults = defaults }
}

/// A TypedDefaults adapter, its key, and the next value to write.
final class TypedState {
    let adapter: DefaultsAdapter<DefaultsKeys>
    let key = Key<Int>("k", default: 0)
    var next = 0
    init(adapter: DefaultsAdapter<DefaultsKeys>) { self.adapter = adapter }
}

struct BenchmarkSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Holds one benchmark's fixture between its setup, its runs and its teardown.
final class StateHolder<State> {
    var fixture: SuiteFixture?
    var state: State?
}

/// Registers a benchmark on a fresh seeded suite: `makeState` runs in the setup (not measured), `body` is
/// measured, and the teardown removes the suite's temporary directory.
func suiteBenchmark<State>(
    _ name: String,
    configuration: Benchmark.Configuration,
    makeState: @escaping (SuiteFixture) throws -> State,
    body: @escaping (Benchmark, State) throws -> Void
) {
    let holder = StateHolder<State>()
    Benchmark(name, configuration: configuration) { (benchmark: Benchmark) throws in
        guard let state = holder.state else {
            benchmark.error("setup did not run")
            return
        }
        try body(benchmark, state)
    } setup: {
        let fixture = try SuiteFixture()
        holder.fixture = fixture
        holder.state = try makeState(fixture)
    } teardown: {
        holder.state = nil
        holder.fixture?.remove()
        holder.fixture = nil
    }
}
