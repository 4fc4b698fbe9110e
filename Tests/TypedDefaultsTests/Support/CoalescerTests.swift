import Dispatch
import Foundation
import Testing

@testable import TypedDefaults

/// Holds a coalescer to its contract: one run per burst of requests, a request during a run makes one run after
/// it and none beside it, and the pauses after failures double and start over after a success.
@Suite("Coalescer and Backoff")
struct CoalescerTests {
    /// What a job saw: how many runs started and ended, the most that ran at once, and the pauses before retries.
    final class Probe: Sendable {
        struct Record: Sendable {
            var started = 0
            var finished = 0
            var runningNow = 0
            var mostAtOnce = 0
            var retries: [Duration] = []
            /// The runs, counted from 1, that throw.
            var failing: Set<Int> = []
        }

        let record = Locked(Record())
        /// Signalled when a run starts; a run listed in `held` then waits for `release`.
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let held: Set<Int>

        init(holding held: Set<Int> = []) {
            self.held = held
        }

        struct Failure: Error {}

        func run() throws {
            let run = record.withLock { record in
                record.started += 1
                record.runningNow += 1
                record.mostAtOnce = max(record.mostAtOnce, record.runningNow)
                return record.started
            }
            started.signal()
            if held.contains(run) { release.wait() }
            let fails = record.withLock { record in
                record.runningNow -= 1
                record.finished += 1
                return record.failing.contains(run)
            }
            if fails { throw Failure() }
        }

        var finished: Int { record.withLock { $0.finished } }
    }

    static func coalescer() -> Coalescer<Probe> {
        Coalescer<Probe> { try? $0.run() }
    }

    @Test("a burst of requests makes one run, and a request after it another")
    func oneRunPerBurst() {
        let probe = Probe()
        let coalescer = Self.coalescer()
        for _ in 0..<100 { coalescer.request(for: probe, within: .milliseconds(20)) }
        #expect(coalescer.isPending)
        #expect(eventually { probe.finished >= 1 })
        #expect(eventually { !coalescer.isPending })
        // A later request runs the job once more; had the burst arranged more than one run, they would be
        // counted by the time this one ends.
        coalescer.request(for: probe)
        #expect(eventually { probe.finished >= 2 })
        #expect(probe.record.withLock { ($0.started, $0.mostAtOnce) } == (2, 1))
    }

    @Test(
        "requests during a run make one run after it, never one beside it, on either executor",
        arguments: [Coalescer<Probe>.Executor.background, .dispatch]
    )
    func requestDuringRun(on executor: Coalescer<Probe>.Executor) {
        let probe = Probe(holding: [1])
        let coalescer = Coalescer<Probe>(on: executor) { try? $0.run() }
        coalescer.request(for: probe)
        #expect(probe.started.wait(timeout: .now() + 10) == .success, "the first run never started")
        // Nothing is arranged beside the run: the requests wait for it to end, and make one run after it.
        for _ in 0..<10 { coalescer.request(for: probe) }
        probe.release.signal()
        #expect(eventually { probe.finished >= 2 })
        coalescer.request(for: probe)
        #expect(eventually { probe.finished >= 3 })
        #expect(probe.record.withLock { ($0.started, $0.mostAtOnce) } == (3, 1))
    }

    @Test("a failing job runs again after pauses that double up to the limit, and start over after a success")
    func backoffOnFailure() {
        let probe = Probe()
        probe.record.withLock { $0.failing = [1, 2, 3, 4, 6] }
        let coalescer = Coalescer<Probe>(
            retrying: Backoff(first: .milliseconds(1), limit: .milliseconds(4)),
            reporting: { probe, failure, retry in
                // Another error than the job's would show as a pause of zero.
                probe.record.withLock { $0.retries.append(failure is Probe.Failure ? retry : .zero) }
            },
            { try $0.run() }
        )
        // Four failures, each run again without a new request, then a success.
        coalescer.request(for: probe)
        #expect(eventually { probe.finished >= 5 })
        #expect(
            probe.record.withLock { $0.retries } == [
                .milliseconds(1), .milliseconds(2), .milliseconds(4), .milliseconds(4),
            ]
        )
        // The success ended the failures in a row: the next failure pauses the first pause again.
        coalescer.request(for: probe)
        #expect(eventually { probe.finished >= 7 })
        #expect(probe.record.withLock { $0.retries.last } == .milliseconds(1))
        #expect(probe.record.withLock { ($0.retries.count, $0.mostAtOnce) } == (5, 1))
    }

    @Test("a back-off doubles up to its limit and starts over")
    func backoffPauses() {
        var backoff = Backoff(first: .microseconds(500), limit: .milliseconds(3))
        #expect(
            (0..<5).map { _ in backoff.next() } == [
                .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(3), .milliseconds(3),
            ]
        )
        backoff.reset()
        #expect(backoff.next() == .microseconds(500))
    }
}
