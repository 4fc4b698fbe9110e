#if os(Linux)
import Benchmark
import Dispatch
import Foundation
import TypedDefaults

#if canImport(Glibc)
import Glibc
#endif

// Observation: how soon a write by another process reaches an observer here, what observing costs in
// memory, and what an idle watch costs in CPU.

/// The environment variable that makes this executable the second process of the latency benchmark.
let latencyWriterVariable = "TYPED_DEFAULTS_BENCH_WRITER"

/// The current wall-clock time in nanoseconds, comparable between processes on one machine.
func wallClockNanoseconds() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return now.tv_sec * 1_000_000_000 + now.tv_nsec
}

/// The second process: writes `count` timestamps to the suite, one every 10 ms, each durable on return.
func runLatencyWriter(_ specification: String) -> Never {
    let parts = specification.split(separator: "\n").map(String.init)
    guard parts.count == 3, let count = Int(parts[2]) else {
        fail("latency writer", "reading \(latencyWriterVariable)", BenchmarkSetupError(specification))
    }
    do {
        let adapter = try DefaultsAdapter(
            suiteName: parts[1],
            directory: URL(fileURLWithPath: parts[0]),
            keyStore: DefaultsKeys(),
            launchArguments: .ignored,
            writePolicy: .immediate
        )
        for _ in 0..<count {
            try adapter.set(wallClockNanoseconds(), for: Key<Int>("stamp", default: 0))
            usleep(10_000)
        }
    } catch {
        fail("latency writer", "writing", error)
    }
    exit(EXIT_SUCCESS)
}

/// The latencies an observer measured, handed to the benchmark body one by one.
final class LatencyProbe: @unchecked Sendable {
    // `latencies` is only touched while holding `lock`; `arrived` counts them.
    private let lock = NSLock()
    private var latencies: [Int] = []
    private let arrived = DispatchSemaphore(value: 0)
    var observation: DefaultsObservation?
    var writer: Process?

    func record(_ latency: Int) {
        lock.lock()
        latencies.append(latency)
        lock.unlock()
        arrived.signal()
    }

    func next() -> Int? {
        guard arrived.wait(timeout: .now() + 10) == .success else { return nil }
        lock.lock()
        defer { lock.unlock() }
        return latencies.removeFirst()
    }
}

func registerObservationBenchmarks(smoke: Bool) {
    // From just before another process's write (the latency includes that write, about 0.5 ms) to the
    // observer's callback here; one write, and one measurement, per iteration.
    let latency = BenchmarkMetric.custom("Latency (μs)", polarity: .prefersSmaller, useScalingFactor: false)
    let samples = smoke ? 5 : 300
    let probe = LatencyProbe()
    var fixture: SuiteFixture?
    Benchmark(
        "Observation latency from another process",
        configuration: .init(
            metrics: [latency],
            warmupIterations: 0,
            scalingFactor: .one,
            maxDuration: .seconds(60),
            maxIterations: samples
        )
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            guard let value = probe.next() else {
                fail("Observation latency", "waiting for the other process's write", BenchmarkSetupError("timed out"))
            }
            benchmark.measurement(latency, value / 1000)
        }
    } setup: {
        do {
            let suite = try SuiteFixture()
            fixture = suite
            let adapter = try suite.adapter()
            probe.observation = adapter.observe(Key<Int>("stamp", default: 0)) { change in
                probe.record(wallClockNanoseconds() - change.newValue)
            }
            let writer = Process()
            #if os(Linux)
            writer.executableURL = URL(fileURLWithPath: "/proc/self/exe")
            #else
            writer.executableURL = Bundle.main.executableURL
            #endif
            writer.arguments = []
            var environment = ProcessInfo.processInfo.environment
            environment[latencyWriterVariable] = "\(suite.directory.path)\n\(suite.suiteName)\n\(samples)"
            writer.environment = environment
            writer.standardOutput = FileHandle.nullDevice
            try writer.run()
            probe.writer = writer
        } catch {
            fail("Observation latency", "setup", error)
        }
    } teardown: {
        probe.writer?.waitUntilExit()
        probe.observation?.invalidate()
        fixture?.remove()
    }

    // Observing and invalidating, 100,000 times per iteration: what is left behind in memory.
    var churnFixture: SuiteFixture?
    var churnAdapter: DefaultsAdapter<DefaultsKeys>?
    Benchmark(
        "100,000 observe and invalidate cycles",
        configuration: .init(
            metrics: [.wallClock, .peakMemoryResident, .mallocCountTotal],
            warmupIterations: 1,
            scalingFactor: .one,
            maxDuration: .seconds(30),
            maxIterations: smoke ? 1 : 5
        )
    ) { benchmark in
        guard let adapter = churnAdapter else { return }
        for _ in 0..<(smoke ? 1_000 : 100_000) {
            adapter.observe(Key<Int>("k", default: 0)) { _ in }.invalidate()
        }
    } setup: {
        do {
            churnFixture = try SuiteFixture()
            churnAdapter = try churnFixture?.adapter()
        } catch {
            fail("observe and invalidate", "setup", error)
        }
    } teardown: {
        churnAdapter = nil
        churnFixture?.remove()
    }

    // An observation with its file watch in place, and nothing happening for a second: CPU used meanwhile.
    var idleFixture: SuiteFixture?
    var idleObservation: DefaultsObservation?
    Benchmark(
        "Idle observation, one second",
        configuration: .init(
            metrics: [.cpuTotal, .wallClock],
            warmupIterations: 0,
            scalingFactor: .one,
            maxDuration: .seconds(10),
            maxIterations: smoke ? 1 : 3
        )
    ) { _ in
        usleep(smoke ? 100_000 : 1_000_000)
    } setup: {
        do {
            idleFixture = try SuiteFixture()
            idleObservation = try idleFixture?.adapter().observe(Key<Int>("k", default: 0)) { _ in }
        } catch {
            fail("Idle observation", "setup", error)
        }
    } teardown: {
        idleObservation?.invalidate()
        idleFixture?.remove()
    }
}
#endif
