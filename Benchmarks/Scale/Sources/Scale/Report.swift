#if os(Linux)
import Foundation

/// What a row's numbers are: how they print, and the units its thresholds may use.
enum Unit {
    /// Seconds, printed in s, ms, µs or ns.
    case time
    /// Microseconds per key of the suite.
    case microsecondsPerKey
    /// Mebibytes.
    case mebibytes
    /// Percent of one core.
    case percentOfCore

    /// How many of this unit's stored values one `unit` of a thresholds file is, or nil if it is not one of its
    /// units.
    func scale(of unit: String) -> Double? {
        switch (self, unit) {
        case (.time, "s"): 1
        case (.time, "ms"): 1e-3
        case (.time, "µs"), (.time, "us"): 1e-6
        case (.microsecondsPerKey, "µs/key"), (.microsecondsPerKey, "us/key"): 1
        case (.mebibytes, "MiB"): 1
        case (.percentOfCore, "%"): 1
        default: nil
        }
    }

    func format(_ value: Double) -> String {
        switch self {
        case .time:
            let magnitude = abs(value)
            if magnitude >= 1 { return significant(value) + " s" }
            if magnitude >= 1e-3 { return significant(value * 1e3) + " ms" }
            if magnitude >= 1e-6 { return significant(value * 1e6) + " µs" }
            return significant(value * 1e9) + " ns"
        case .microsecondsPerKey: return significant(value) + " µs/key"
        case .mebibytes: return significant(value) + " MiB"
        case .percentOfCore: return significant(value) + "%"
        }
    }
}

/// Three significant digits (more for large numbers), no exponent.
func significant(_ value: Double) -> String {
    let magnitude = abs(value)
    let decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3
    return String(format: "%.\(decimals)f", value)
}

/// A ratio: three significant digits, two for one below 0.01 (where a read's hundreds of nanoseconds meet
/// Foundation's milliseconds).
func formatRatio(_ value: Double) -> String {
    abs(value) >= 0.01 || value == 0 ? significant(value) + "×" : String(format: "%.2g×", value)
}

/// A row of the table: one measurement.
struct Row {
    let id: String
    let label: String
    let unit: Unit
}

/// One measurement at one size: TypedDefaults' figure, and raw Foundation's (or another reference) beside it.
struct Cell {
    var typed: Double
    var raw: Double?
    /// Printed instead of the numbers (counts, baselines).
    var text: String?

    init(_ typed: Double, _ raw: Double? = nil) {
        self.typed = typed
        self.raw = raw
    }

    init(text: String) {
        typed = 0
        self.text = text
    }

    var ratio: Double? {
        guard let raw, raw > 0 else { return nil }
        return typed / raw
    }
}

/// The results of a run, and how they print.
final class Report {
    static let rows: [Row] = [
        Row(
            id: "first-read",
            label: "Open + first read of \"k\" in a new process (wall, minus an empty process)",
            unit: .time
        ),
        Row(id: "first-read-cpu", label: "… the same, CPU time (user + system, minus an empty process)", unit: .time),
        Row(id: "empty-process", label: "… an empty process (subtracted above): wall; CPU", unit: .time),
        Row(id: "modify", label: "`modify { $0 += 1 }` / `set` + `synchronize()`, per operation", unit: .time),
        Row(id: "flush", label: "Write then `flush()` / `set` + `synchronize()`, per operation", unit: .time),
        Row(id: "flush-per-key", label: "… write then `flush()`, per key of the suite", unit: .microsecondsPerKey),
        Row(id: "read-max", label: "Read of \"k2\" under load: maximum latency", unit: .time),
        Row(id: "read-max-running", label: "… maximum of the reads not preempted", unit: .time),
        Row(id: "read-preempted", label: "… reads preempted by the scheduler (TypedDefaults; raw)", unit: .time),
        Row(id: "read-p999", label: "… 99.9th percentile", unit: .time),
        Row(id: "read-median", label: "… median", unit: .time),
        Row(
            id: "load",
            label: "… reads made, and writes by the thread + by the other process (TypedDefaults; raw)",
            unit: .time
        ),
        Row(
            id: "peak-memory",
            label: "Peak memory of a process that opens, reads \"k\", writes it durably (VmHWM)",
            unit: .mebibytes
        ),
        Row(id: "peak-memory-empty", label: "… an empty process", unit: .mebibytes),
        Row(
            id: "stream-cpu",
            label: "CPU of a steady write stream, 1,000 writes/s (% of one core)",
            unit: .percentOfCore
        ),
        Row(id: "fan-out", label: "Coalesced write of \"k\": 1,000 observers of other keys / 1", unit: .time),
    ]

    private(set) var cells: [String: [Int: Cell]] = [:]
    private(set) var notes: [String] = []

    static func row(_ id: String) -> Row? { rows.first { $0.id == id } }

    func set(_ id: String, size: Int, _ cell: Cell) {
        precondition(Self.row(id) != nil, "no row \(id)")
        cells[id, default: [:]][size] = cell
    }

    func cell(_ id: String, size: Int) -> Cell? { cells[id]?[size] }

    func note(_ line: String) {
        if !notes.contains(line) { notes.append(line) }
    }

    /// The markdown table: a row per measurement, a column per size.
    ///
    /// `marks` holds, per row and size, whether the cell met its thresholds.
    func table(sizes: [Int], marks: [String: [Int: Bool]]) -> String {
        var lines = [
            "| Measurement (TypedDefaults / raw Foundation (ratio)) | "
                + sizes.map { "\($0.formatted(.number.grouping(.automatic))) keys" }.joined(separator: " | ") + " |",
            "|---|" + String(repeating: "---|", count: sizes.count),
        ]
        for row in Self.rows where cells[row.id] != nil {
            let columns = sizes.map { size -> String in
                guard let cell = cells[row.id]?[size] else { return "" }
                var text = cell.text ?? format(cell, unit: row.unit)
                if let met = marks[row.id]?[size] { text += met ? " ✓" : " ✗" }
                return text
            }
            lines.append("| \(row.label) | " + columns.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }

    private func format(_ cell: Cell, unit: Unit) -> String {
        var text = unit.format(cell.typed)
        if let raw = cell.raw {
            text += " / " + unit.format(raw)
            if let ratio = cell.ratio { text += " (\(formatRatio(ratio)))" }
        }
        return text
    }
}

/// The machine, for the report: cores, CPU model, kernel, and the load average.
func machineDescription() -> String {
    // portability: read where it exists; the report says "unknown" elsewhere.
    let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    let model =
        cpuinfo.split(separator: "\n")
        .first { $0.hasPrefix("model name") }
        .flatMap { $0.split(separator: ":", maxSplits: 1).last }
        .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
    var name = utsname()
    uname(&name)
    let kernel = withUnsafeBytes(of: &name.release) { bytes in
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
    let load =
        // portability: read where it exists; the report says "unknown" elsewhere.
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?
        .split(separator: " ").prefix(3).joined(separator: " ") ?? "unknown"
    return "\(ProcessInfo.processInfo.activeProcessorCount) cores (nproc), \(model), kernel \(kernel), "
        + "load average \(load)"
}

/// The command line as typed, to run it again.
func commandLine() -> String {
    let arguments = CommandLine.arguments.map { argument in
        argument.allSatisfy { $0.isLetter || $0.isNumber || "-_./,=:".contains($0) }
            ? argument : "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
    return "(cd \(FileManager.default.currentDirectoryPath) && " + arguments.joined(separator: " ") + ")"
}
#endif
