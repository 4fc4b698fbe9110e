#if os(Linux)
import Foundation
import TypedDefaults

/// 4. The latency of every read while others write: for `--load-seconds`, a thread of this process writes "k"
/// once a millisecond and another process writes "c" every 10 ms, each durably in its own way, while a reader
/// thread reads "k2" about every 50 µs and times each read. TypedDefaults: coalesced writes through the reader's
/// adapter, and `.immediate` writes in the other process. Raw Foundation: `set` from the thread, and `set` +
/// `synchronize()` in the other process.
func measureReadLatency(_ workspace: Workspace, options: Options, report: Report) throws {
    let typedSuite = try workspace.suite("load-typed")
    let adapter = try typedSuite.adapter()
    try expectRead(adapter[key: Keys.k2], Seed.k2)
    let typed = try underLoad(typedSuite, seconds: options.loadSeconds, writer: .typedWriter) {
        { adapter[key: Keys.k2] }
    } writer: {
        { value in adapter[key: Keys.k] = value }
    } finish: {
        try adapter.flush()
    }

    let rawSuite = try workspace.suite("load-raw")
    // UserDefaults is not Sendable on Linux: each thread opens the suite itself. Instances of one suite share
    // Foundation's copy of it, which this first one loads before the threads start.
    try expectRead(try rawSuite.foundation().integer(forKey: Keys.k2.name), Seed.k2)
    let raw = try underLoad(rawSuite, seconds: options.loadSeconds, writer: .foundationWriter) {
        let defaults = try rawSuite.foundation()
        return { defaults.integer(forKey: Keys.k2.name) }
    } writer: {
        let defaults = try rawSuite.foundation()
        return { value in defaults.set(value, forKey: Keys.k.name) }
    } finish: {
        guard try rawSuite.foundation().synchronize() else { throw ScaleError("Foundation's synchronize() failed") }
    }

    let size = workspace.size
    report.set("read-max", size: size, Cell(typed.latency(at: 1), raw.latency(at: 1)))
    report.set("read-max-running", size: size, Cell(typed.longestUnpreempted, raw.longestUnpreempted))
    report.set("read-preempted", size: size, Cell(text: typed.preemptions + "; " + raw.preemptions))
    report.set("read-p999", size: size, Cell(typed.latency(at: 0.999), raw.latency(at: 0.999)))
    report.set("read-median", size: size, Cell(typed.latency(at: 0.5), raw.latency(at: 0.5)))
    report.set("load", size: size, Cell(text: typed.counts + "; " + raw.counts))
    report.note(
        "Read latency, not preempted: the longest read during which the scheduler took the reader's core away "
            + "from it at no point (its thread's involuntary context switches, from getrusage(RUSAGE_THREAD) "
            + "around the read, did not change). A read that waits for a lock blocks, which is a voluntary "
            + "switch, and stays in this figure; a read longer than this was runnable all along, waiting for a "
            + "core that other threads, processes or the kernel held."
    )
    report.note(
        "Read latency under load: one \(significant(options.loadSeconds)) s run per side. The reader sleeps about "
            + "50 µs between reads and the writers pace themselves (1 write/ms, 1 write/10 ms) on purpose: the "
            + "machine has \(ProcessInfo.processInfo.activeProcessorCount) cores, and unpaced loops would measure "
            + "the scheduler. A writer whose write takes longer than its interval writes less often."
    )
}

/// What a run under load measured.
private struct LoadResult {
    /// Every read's latency, in seconds, sorted.
    let latencies: [Double]
    /// The longest read the scheduler did not preempt, and how many reads it did.
    let longestUnpreempted: Double
    let preempted: [Double]
    let threadWrites: Int
    let childWrites: Int

    func latency(at fraction: Double) -> Double { percentile(latencies, fraction) }

    var preemptions: String {
        let longest = preempted.max().map { ", the longest \(Unit.time.format($0))" } ?? ""
        return "\(preempted.count.formatted()) reads preempted\(longest)"
    }

    var counts: String {
        "\(latencies.count.formatted()) reads, \(threadWrites.formatted()) + \(childWrites.formatted()) writes"
    }
}

/// Starts the `writer` child on `suite`, then for `seconds` reads on one thread and writes on another, with what
/// `reader` and `writer` return on their threads; then `finish`es (makes the writes durable) and checks that the
/// file holds both writers' last values.
private func underLoad(
    _ suite: Suite,
    seconds: Double,
    writer child: Child.Mode,
    reader: @escaping @Sendable () throws -> () -> Int,
    writer: @escaping @Sendable () throws -> (Int) -> Void,
    finish: () throws -> Void
) throws -> LoadResult {
    let process = try ChildProcess(Child.Spec(child, suite, seconds: seconds))
    var childFinished = false
    defer { if !childFinished { process.terminate() } }
    guard try process.readFields()["ready"] != nil else { throw ScaleError("the \(child) child did not start") }

    let end = ContinuousClock.now + .seconds(seconds)
    let reads = Shared<(latencies: [Double], unpreempted: Double, preempted: [Double], wrong: Int?, error: String?)>(
        ([], 0, [], nil, nil)
    )
    let writes = Shared<(last: Int, error: String?)>((Seed.k, nil))
    let readerThread = startThread {
        let read: () -> Int
        do {
            read = try reader()
        } catch {
            reads.withLock { $0.error = "\(error)" }
            return
        }
        var latencies: [Double] = []
        latencies.reserveCapacity(Int(seconds * 20_000))
        var unpreempted = 0.0
        var preempted: [Double] = []
        var wrong: Int?
        while ContinuousClock.now < end {
            let switchesBefore = involuntarySwitches()
            let start = ContinuousClock.now
            let value = read()
            let latency = start.duration(to: .now).seconds
            latencies.append(latency)
            if involuntarySwitches() == switchesBefore {
                unpreempted = max(unpreempted, latency)
            } else {
                preempted.append(latency)
            }
            if value != Seed.k2 {
                wrong = value
                break
            }
            sleep(for: .microseconds(50))
        }
        reads.withLock { $0 = (latencies, unpreempted, preempted, wrong, nil) }
    }
    let writerThread = startThread {
        let write: (Int) -> Void
        do {
            write = try writer()
        } catch {
            writes.withLock { $0.error = "\(error)" }
            return
        }
        var value = Seed.k
        var next = ContinuousClock.now
        while ContinuousClock.now < end {
            value += 1
            write(value)
            next = max(next + .milliseconds(1), .now)
            sleep(until: next)
        }
        writes.withLock { $0.last = value }
    }
    readerThread.wait()
    writerThread.wait()
    let report = try process.readFields()
    try process.wait()
    childFinished = true

    let (latencies, unpreempted, preempted, wrong, readError) = reads.withLock { $0 }
    let (last, writeError) = writes.withLock { $0 }
    if let error = readError ?? writeError { throw ScaleError(error) }
    if let wrong { throw ScaleError("a read of \"k2\" under load returned \(wrong), expected \(Seed.k2)") }
    guard !latencies.isEmpty else { throw ScaleError("no read was made under load") }
    try finish()
    let childLast = Int(try report.number("last"))
    try suite.verify(["k": last, Keys.other.name: childLast])
    return LoadResult(
        latencies: latencies.sorted(),
        longestUnpreempted: unpreempted,
        preempted: preempted,
        threadWrites: last - Seed.k,
        childWrites: Int(try report.number("writes"))
    )
}

private func expectRead(_ value: Int, _ expected: Int) throws {
    guard value == expected else { throw ScaleError("read \"k2\" = \(value), expected \(expected)") }
}

/// How many times the scheduler has taken the calling thread's core away from it while it could run.
private func involuntarySwitches() -> Int {
    var usage = rusage()
    #if os(Linux)
    // RUSAGE_THREAD (Linux): this thread's own counts.
    getrusage(__rusage_who_t(1), &usage)
    #else
    // Darwin counts for the whole process only.
    getrusage(RUSAGE_SELF, &usage)
    #endif
    return usage.ru_nivcsw
}
#endif
