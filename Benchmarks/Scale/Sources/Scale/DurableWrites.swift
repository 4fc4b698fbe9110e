#if os(Linux)
import Foundation
import TypedDefaults

/// 2. `modify { $0 += 1 }` (durable when it returns) through an adapter with the default write policy, against
/// raw Foundation's `set(_:forKey:)` + `synchronize()`, each on a suite of its own. A round times a batch of
/// operations of each, in alternating order; the results are per operation, medians over the rounds.
func measureModify(_ workspace: Workspace, options: Options, report: Report) throws {
    let (typed, raw) = try durableWrites(workspace, options: options, name: "modify") { adapter, value in
        let result = try adapter.modify(Keys.k) { $0 += 1 }
        guard result == value else { throw ScaleError("modify returned \(result), expected \(value)") }
    }
    report.set("modify", size: workspace.size, Cell(typed, raw))
    report.note("Durable writes: operations per round, timed as a batch: \(operationsNote(options)).")
}

/// 3. A write, then `flush()`, against raw `set` + `synchronize()`, as ``measureModify(_:options:report:)`` does;
/// also TypedDefaults' time per key of the suite.
func measureFlush(_ workspace: Workspace, options: Options, report: Report) throws {
    let (typed, raw) = try durableWrites(workspace, options: options, name: "flush") { adapter, value in
        adapter[key: Keys.k] = value
        try adapter.flush()
    }
    report.set("flush", size: workspace.size, Cell(typed, raw))
    report.set("flush-per-key", size: workspace.size, Cell(typed * 1e6 / Double(workspace.size)))
}

/// Times `operation` against raw `set` + `synchronize()`; returns the medians per operation, in seconds.
///
/// `operation` leaves "k" holding the value it is given, one more each time; the raw side writes the same
/// values. Rounds are interleaved, on suites of their own, and both files are checked afterwards.
private func durableWrites(
    _ workspace: Workspace,
    options: Options,
    name: String,
    _ operation: (DefaultsAdapter<DefaultsKeys>, Int) throws -> Void
) throws -> (typed: Double, raw: Double) {
    let operations = options.durableOperations(size: workspace.size)
    let (typedSuite, rawSuite) = (try workspace.suite(name + "-typed"), try workspace.suite(name + "-raw"))
    let adapter = try typedSuite.adapter()
    let defaults = try rawSuite.foundation()
    var typedValue = Seed.k
    var rawValue = Seed.k
    let (typed, raw) = try interleave(rounds: options.rounds) {
        try time {
            for _ in 0..<operations {
                typedValue += 1
                try operation(adapter, typedValue)
            }
        }
    } raw: {
        try rawSetAndSynchronize(defaults, operations: operations, value: &rawValue)
    }
    try typedSuite.verify(["k": typedValue])
    try rawSuite.verify(["k": rawValue])
    return (typed / Double(operations), raw / Double(operations))
}

/// `operations` of raw Foundation's durable write, `set` + `synchronize()`, of `value + 1`, `value + 2`...: the
/// time they took.
private func rawSetAndSynchronize(_ defaults: UserDefaults, operations: Int, value: inout Int) throws -> Double {
    var synchronized = true
    let elapsed = time {
        for _ in 0..<operations {
            value += 1
            defaults.set(value, forKey: "k")
            synchronized = defaults.synchronize() && synchronized
        }
    }
    guard synchronized else { throw ScaleError("Foundation's synchronize() failed") }
    return elapsed
}

/// Runs `typed` and `raw` once per round, alternating which goes first: the medians of their results.
func interleave(
    rounds: Int,
    typed: () throws -> Double,
    raw: () throws -> Double
) rethrows -> (typed: Double, raw: Double) {
    var typedResults: [Double] = []
    var rawResults: [Double] = []
    for round in 0..<rounds {
        if round % 2 == 0 {
            typedResults.append(try typed())
            rawResults.append(try raw())
        } else {
            rawResults.append(try raw())
            typedResults.append(try typed())
        }
    }
    return (median(typedResults), median(rawResults))
}

/// The operations per round at the default sizes, for the notes.
func operationsNote(_ options: Options) -> String {
    options.sizes.map { "\(options.durableOperations(size: $0)) at \($0.formatted()) keys" }
        .joined(separator: ", ")
}
#endif
