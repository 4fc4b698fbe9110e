#if os(Linux)
import Foundation

/// 1. Open + first read in a new process: this executable started again as a child that opens the suite, reads
/// "k", checks it and exits (TypedDefaults, Foundation), beside one that exits at once (`none`). Each round runs
/// one of each, in a rotating order; the results are medians, minus the empty process's median.
func measureFirstRead(_ workspace: Workspace, options: Options, report: Report) throws {
    let suite = try workspace.suite("first-read")
    let modes: [Child.Mode] = [.none, .foundationRead, .typedRead]
    var wall: [Child.Mode: [Double]] = [:]
    var cpu: [Child.Mode: [Double]] = [:]
    for round in 0..<options.rounds {
        for offset in 0..<modes.count {
            let mode = modes[(round + offset) % modes.count]
            let result = try ChildProcess.run(Child.Spec(mode, suite))
            wall[mode, default: []].append(result.wall)
            cpu[mode, default: []].append(try result.fields.number("cpu"))
        }
    }
    let emptyWall = median(wall[.none] ?? [])
    let emptyCPU = median(cpu[.none] ?? [])
    let size = workspace.size
    report.set(
        "first-read",
        size: size,
        Cell(median(wall[.typedRead] ?? []) - emptyWall, median(wall[.foundationRead] ?? []) - emptyWall)
    )
    report.set(
        "first-read-cpu",
        size: size,
        Cell(median(cpu[.typedRead] ?? []) - emptyCPU, median(cpu[.foundationRead] ?? []) - emptyCPU)
    )
    report.set(
        "empty-process",
        size: size,
        Cell(text: Unit.time.format(emptyWall) + "; " + Unit.time.format(emptyCPU))
    )
    report.note(
        "First read: one child process per mode per round, in rotating order, started with posix_spawn and "
            + "waited for with waitpid; its CPU time is what its getrusage says just before it exits."
    )
    // Nothing wrote to the suite: the children only read it.
    try suite.verify(["k": Seed.k])
}
#endif
