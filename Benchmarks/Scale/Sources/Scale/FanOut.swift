#if os(Linux)
import Foundation
import TypedDefaults

/// 7. A write's fan-out: the time of a coalesced write of "k" while 1,000 observers watch other keys, against the
/// same write while one observer watches another key (a write costs a little more once anyone observes, however
/// many: the changes are then worked out for announcement). A round times batches of writes with the one
/// observer, then registers the 1,000 and times as many batches with them. The batches of a round take a few milliseconds in all, well within the
/// 100 ms in which coalesced writes reach the file, and the writes are flushed (untimed) before each set of
/// batches, so no batch waits for a file write. The result is the median over every batch of every round, per
/// write: a batch that the scheduler interrupts (the machine has two cores) moves the median little.
func measureFanOut(_ workspace: Workspace, options: Options, report: Report) throws {
    let suite = try workspace.suite("fan-out")
    let adapter = try suite.adapter()
    let calls = Shared(0)
    var value = Seed.k
    func batches() throws -> [Double] {
        try adapter.flush()
        return (0..<options.fanOutBatches)
            .map { _ in
                time {
                    for _ in 0..<options.fanOutWrites {
                        value += 1
                        adapter[key: Keys.k] = value
                    }
                } / Double(options.fanOutWrites)
            }
    }
    var one: [Double] = []
    var with: [Double] = []
    for round in 0..<options.rounds {
        let single = adapter.observe(Key<Int>("single", default: 0)) { _ in calls.withLock { $0 += 1 } }
        one += try batches()
        single.invalidate()
        let observations = (0..<options.fanOutObservers)
            .map { index in
                adapter.observe(Key<Int>("other\(index)", default: 0)) { _ in calls.withLock { $0 += 1 } }
            }
        with += try batches()
        guard calls.withLock({ $0 }) == 0 else { throw ScaleError("an observer of another key was called") }
        if round == options.rounds - 1 {
            // The observers are live: a write of one of their keys reaches its observer.
            adapter[key: Key<Int>("other0", default: 0)] = 1
            let deadline = ContinuousClock.now + .seconds(10)
            while calls.withLock({ $0 }) == 0 && ContinuousClock.now < deadline { sleep(for: .milliseconds(1)) }
            guard calls.withLock({ $0 }) == 1 else {
                throw ScaleError("the observer of \"other0\" was called \(calls.withLock { $0 }) times, not once")
            }
        }
        for observation in observations { observation.invalidate() }
    }
    report.set("fan-out", size: workspace.size, Cell(median(with), median(one)))
    report.note(
        "Fan-out: \(options.fanOutBatches) batches of \(options.fanOutWrites) coalesced writes with the 1,000 "
            + "observers and with the one per round; the median over all batches."
    )
    adapter.reset(Key<Int>("other0", default: 0))
    try adapter.flush()
    try suite.verify(["k": value])
}
#endif
