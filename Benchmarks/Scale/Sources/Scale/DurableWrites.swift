import Foundation
import TypedDefaults

/// 2. `modify { $0 += 1 }` (durable when it returns) through an adapter with the default write policy, against
/// raw Foundation's `set(_:forKey:)` + `synchronize()`, each on a suite of its own. A round times a batch of
/// operations of each, in alternating order; the results are per operation, medians over the rounds.
func measureModify(_ workspace: Workspace, options: Options, report: Report) throws {
    let operations = options.durableOperations(size: workspace.size)
    let (typedSuite, rawSuite) = (try workspace.suite("modify-typed"), try workspace.suite("modify-raw"))
    let adapter = try typedSuite.adapter()
    let defaults = try rawSuite.foundation()
    var typedValue = Seed.k
    var rawValue = Seed.k
    let (typed, raw) = try interleave(rounds: options.rounds) {
        try time {
            for _ in 0..<operations {
                let result = try adapter.modify(Keys.k) { $0 += 1 }
                typedValue += 1
                guard result == typedValue else {
                    throw ScaleError("modify returned \(result), expected \(typedValue)")
                }
            }
        }
    } raw: {
        try rawSetAndSynchronize(defaults, operations: operations, value: &rawValue)
    }
    let perOperation = Double(operations)
    report.set("modify", size: workspace.size, Cell(typed / perOperation, raw / perOperation))
    report.note("Durable writes: operations per round, timed as a batch: \(operationsNote(options)).")
    try typedSuite.verify(["k": typedValue])
    try rawSuite.verify(["k": rawValue])
}

/// 3. A write, then `flush()`, against raw `set` + `synchronize()`, as ``measureModify(_:options:report:)`` does;
/// also TypedDefaults' time per key of the suite.
func measureFlush(_ workspace: Workspace, options: Options, report: Report) throws {
    let operations = options.durableOperations(size: workspace.size)
    let (typedSuite, rawSuite) = (try workspace.suite("flush-typed"), try workspace.suite("flush-raw"))
    let adapter = try typedSuite.adapter()
    let defaults = try rawSuite.foundation()
    var typedValue = Seed.k
    var rawValue = Seed.k
    let (typed, raw) = try interleave(rounds: options.rounds) {
        try time {
            for _ in 0..<operations {
                typedValue += 1
                adapter[key: Keys.k] = typedValue
                try adapter.flush()
            }
        }
    } raw: {
        try rawSetAndSynchronize(defaults, operations: operations, value: &rawValue)
    }
    let perOperation = typed / Double(operations)
    report.set("flush", size: workspace.size, Cell(perOperation, raw / Double(operations)))
    report.set("flush-per-key", size: workspace.size, Cell(perOperation * 1e6 / Double(workspace.size)))
    try typedSuite.verify(["k": typedValue])
    try rawSuite.verify(["k": rawValue])
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
