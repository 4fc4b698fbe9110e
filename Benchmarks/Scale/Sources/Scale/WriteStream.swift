#if os(Linux)
import Foundation

/// 6. The CPU time a steady stream of writes costs: a child process writes "k" once a millisecond for
/// `--stream-seconds`, then makes the writes durable, and reports its CPU time (user + system) over that time
/// divided by the wall time. TypedDefaults: coalesced writes, then `flush()`. Raw Foundation: `set`, with
/// `synchronize()` every 100 ms (as durable as coalesced writes). Nothing is subtracted.
func measureWriteStream(_ workspace: Workspace, options: Options, report: Report) throws {
    let typedSuite = try workspace.suite("stream-typed")
    let rawSuite = try workspace.suite("stream-raw")
    var shares: [Double] = []
    for (mode, suite) in [(Child.Mode.typedStream, typedSuite), (.foundationStream, rawSuite)] {
        let result = try ChildProcess.run(Child.Spec(mode, suite, seconds: options.streamSeconds))
        let writes = try result.fields.number("writes")
        // Paced at one a millisecond, a stream writes no more than that, and at least a tenth of it.
        guard writes <= options.streamSeconds * 1_000 + 1, writes >= options.streamSeconds * 100 else {
            throw ScaleError("the \(mode.rawValue) child wrote \(Int(writes)) times in \(options.streamSeconds) s")
        }
        try suite.verify(["k": Int(try result.fields.number("last"))])
        shares.append(try result.fields.number("share") * 100)
    }
    report.set("stream-cpu", size: workspace.size, Cell(shares[0], shares[1]))
    report.note(
        "Write stream: one \(significant(options.streamSeconds)) s run per side (not rounds), the child's whole "
            + "CPU time over the stream and its final flush, nothing subtracted."
    )
}
#endif
