#if os(Linux)
import Foundation

/// A target of issue 12, from `thresholds.json`: a row's ratio (TypedDefaults / raw) or its TypedDefaults figure,
/// at the sizes named (every size if none are), must be at most `atMost` or below `below`.
struct Threshold: Decodable {
    enum Compared: String, Decodable {
        case ratio
        case value
    }

    let row: String
    let compare: Compared
    /// The unit of `atMost` or `below` when comparing a value ("ms", "µs/key", "%", "MiB"...).
    let unit: String?
    let sizes: [Int]?
    let atMost: Double?
    let below: Double?
    /// The target in the words.
    let target: String

    /// The limit in the row's own unit (seconds for times).
    private func limit() throws -> Double {
        guard let row = Report.row(row) else { throw ScaleError("thresholds.json names no row \"\(self.row)\"") }
        guard let bound = atMost ?? below, (atMost == nil) != (below == nil) else {
            throw ScaleError("the threshold \"\(target)\" needs exactly one of atMost and below")
        }
        switch compare {
        case .ratio:
            guard unit == nil else { throw ScaleError("the ratio threshold \"\(target)\" has a unit") }
            return bound
        case .value:
            guard let unit, let scale = row.unit.scale(of: unit) else {
                throw ScaleError("the threshold \"\(target)\" needs a unit of the row \"\(row.id)\"")
            }
            return bound * scale
        }
    }

    /// Whether `cell` meets the threshold, or nil if it has nothing to compare (no raw figure for a ratio).
    func met(by cell: Cell) throws -> Bool? {
        let limit = try limit()
        guard let compared = compare == .ratio ? cell.ratio : cell.typed, cell.text == nil else { return nil }
        return atMost != nil ? compared <= limit : compared < limit
    }

    /// The figure compared, for the list of misses.
    func describe(_ cell: Cell) -> String {
        guard let row = Report.row(row) else { return "?" }
        return compare == .ratio ? formatRatio(cell.ratio ?? .nan) : row.unit.format(cell.typed)
    }
}

enum Thresholds {
    private struct File: Decodable {
        let thresholds: [Threshold]
    }

    /// Reads the file, and checks that every threshold names a row and a unit it can use.
    static func load(_ path: String) throws -> [Threshold] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ScaleError("no thresholds file at \(path) (pass --thresholds)")
        }
        let thresholds = try JSONDecoder().decode(File.self, from: data).thresholds
        for threshold in thresholds { _ = try threshold.met(by: Cell(1, 1)) }
        return thresholds
    }

    /// Compares the report with the thresholds at the sizes measured: per row and size, whether every
    /// threshold on the cell was met, and a line for every miss.
    static func evaluate(
        _ thresholds: [Threshold],
        report: Report,
        sizes: [Int]
    ) throws -> (marks: [String: [Int: Bool]], misses: [String]) {
        var marks: [String: [Int: Bool]] = [:]
        var misses: [String] = []
        for threshold in thresholds {
            for size in sizes where threshold.sizes?.contains(size) ?? true {
                guard let cell = report.cell(threshold.row, size: size), let met = try threshold.met(by: cell) else {
                    continue
                }
                marks[threshold.row, default: [:]][size] = (marks[threshold.row]?[size] ?? true) && met
                if !met {
                    misses.append(
                        "\(threshold.row) at \(size) keys: \(threshold.describe(cell)); target: \(threshold.target)"
                    )
                }
            }
        }
        return (marks, misses)
    }
}
#endif
