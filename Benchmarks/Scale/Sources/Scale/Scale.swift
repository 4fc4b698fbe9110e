#if os(Linux)
import Foundation

/// Whole-file operations of TypedDefaults at every suite size, beside raw Foundation `UserDefaults` (issue 12).
///
/// In one run: a new process's first read, durable writes, read latency while others write, peak memory, the
/// CPU of a write stream, and a write's fan-out to observers. Prints one markdown table.
///
///     cd Benchmarks/Scale && swift build -c release && .build/release/Scale [--sizes 10,1000] [--check]
@main
enum ScaleBenchmark {
    static func main() {
        if let child = ProcessInfo.processInfo.environment[Child.variable] {
            Child.main(child)
        }
        let options: Options
        do {
            options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            printError("Scale: \(error)\n\n\(Options.usage)")
            exit(2)
        }
        do {
            try run(options)
        } catch {
            printError("Scale: FAILED: \(error)")
            exit(EXIT_FAILURE)
        }
    }

    private static func run(_ options: Options) throws {
        let thresholds = try Thresholds.load(options.thresholdsPath)
        let machine = machineDescription()
        let started = ContinuousClock.now
        let report = Report()
        let measurements: [(String, String, (Workspace, Options, Report) throws -> Void)] = [
            ("first-read", "first read in a new process", measureFirstRead),
            ("modify", "modify", measureModify),
            ("flush", "write then flush", measureFlush),
            ("load", "read latency under load", measureReadLatency),
            ("memory", "peak memory", measurePeakMemory),
            ("stream", "write stream", measureWriteStream),
            ("fan-out", "fan-out", measureFanOut),
        ]
        for size in options.sizes {
            let workspace = try Workspace(size: size)
            defer { workspace.remove() }
            for (option, name, measure) in measurements where options.only?.contains(option) ?? true {
                printError("Scale: \(size.formatted()) keys: \(name)…")
                try measure(workspace, options, report)
            }
        }
        let elapsed = started.duration(to: .now).seconds

        let (marks, misses) = try Thresholds.evaluate(thresholds, report: report, sizes: options.sizes)
        print(report.table(sizes: options.sizes, marks: marks))
        print()
        print(
            "Medians of \(options.rounds) interleaved rounds unless said otherwise. Each suite holds N string keys "
                + "(30-character names and values) plus the Int keys \"k\" and \"k2\", seeded as an XML property "
                + "list; TypedDefaults and Foundation each get a copy of their own. ✓/✗: the cell against "
                + "thresholds.json (issue 12's targets)."
        )
        for note in report.notes { print("- " + note) }
        print()
        print("Machine: \(machine)")
        print("Command: \(commandLine())")
        print("Run time: \(Unit.time.format(elapsed))")
        if options.check {
            if misses.isEmpty {
                print("Thresholds: every target met at the sizes measured.")
            } else {
                printError(
                    "Scale: \(misses.count) threshold(s) missed:\n" + misses.map { "  - " + $0 }.joined(separator: "\n")
                )
                exit(EXIT_FAILURE)
            }
        }
    }
}
#else
// TypedDefaults' file store exists on Linux only: on Apple platforms suites live in Foundation's UserDefaults (Docs/Platforms.md).
@main
enum ScaleBenchmark {
    static func main() {
        print("Scale measures the Linux file store beside Linux Foundation; nothing to measure here.")
    }
}
#endif
