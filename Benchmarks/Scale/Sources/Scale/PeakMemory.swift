#if os(Linux)
import Foundation

/// 5. Peak memory: a child process opens the suite, reads "k", writes it once and makes it durable, and reports
/// its peak resident memory (see ``ResourceUsage/peakResidentKiB``); TypedDefaults, Foundation and an empty
/// process, one of each per round, in rotating order, medians.
func measurePeakMemory(_ workspace: Workspace, options: Options, report: Report) throws {
    let typedSuite = try workspace.suite("memory-typed")
    let rawSuite = try workspace.suite("memory-raw")
    // Each child checks that "k" holds what the one before it wrote.
    var typedValue = Seed.k
    var rawValue = Seed.k
    var peaks: [Child.Mode: [Double]] = [:]
    let modes: [Child.Mode] = [.none, .foundationMemory, .typedMemory]
    for round in 0..<options.rounds {
        for offset in 0..<modes.count {
            let mode = modes[(round + offset) % modes.count]
            let spec: Child.Spec
            switch mode {
            case .typedMemory: spec = Child.Spec(mode, typedSuite, expected: typedValue)
            case .foundationMemory: spec = Child.Spec(mode, rawSuite, expected: rawValue)
            default: spec = Child.Spec(mode, typedSuite)
            }
            let result = try ChildProcess.run(spec)
            peaks[mode, default: []].append(try result.fields.number("peak") / 1024)
            switch mode {
            case .typedMemory: typedValue += 1
            case .foundationMemory: rawValue += 1
            default: break
            }
        }
    }
    let size = workspace.size
    report.set(
        "peak-memory",
        size: size,
        Cell(median(peaks[.typedMemory] ?? []), median(peaks[.foundationMemory] ?? []))
    )
    report.set("peak-memory-empty", size: size, Cell(median(peaks[.none] ?? [])))
    report.note(
        // portability: the report says how Linux measures; elsewhere ru_maxrss is all there is.
        "Peak memory: VmHWM from the child's /proc/self/status, in MiB. Not ru_maxrss: a child started with "
            + "posix_spawn shares this process's memory until exec, and Linux carries that memory's peak into the "
            + "child's ru_maxrss, so every child would report the parent's peak."
    )
    try typedSuite.verify(["k": typedValue])
    try rawSuite.verify(["k": rawValue])
}
#endif
