import Foundation
import TypedDefaults

/// How the tool prints values: macOS `defaults` style (old-style property lists), or JSON with `--json`.
enum Output {
    /// A value as `read` prints it; a lone string or date prints bare, as macOS does.
    static func text(_ value: PropertyListValue, topLevel: Bool = true) -> String {
        if topLevel, case .string(let string) = value { return string }
        if topLevel, case .date(let date) = value { return macOSDate(date) }
        return oldStyle(value, level: 0)
    }

    /// A dictionary given as pairs, in their order, as `text(_:)` prints one: for names that must stay apart
    /// even when `String` takes them to be equal (a domain's NFC and NFD spellings).
    static func text(entries: [(String, PropertyListValue)]) -> String {
        let lines = entries.map { "    " + quotedIfNeeded($0.0) + " = " + oldStyle($0.1, level: 1) + ";\n" }
        return "{\n" + lines.joined() + "}"
    }

    /// A JSON object given as pairs, in their order (see ``text(entries:)``).
    static func json(entries: [(String, PropertyListValue)]) -> String {
        "{" + entries.map { quotedJSON($0.0) + ":" + json($0.1) }.joined(separator: ",") + "}"
    }

    static func json(_ value: PropertyListValue) -> String {
        switch value {
        case .string(let string): return quotedJSON(string)
        case .bool(let bool): return bool ? "true" : "false"
        case .integer(let integer): return String(integer)
        case .unsignedInteger(let integer): return String(integer)
        case .double(let double): return double.isFinite ? String(double) : quotedJSON(String(double))
        case .data(let data): return quotedJSON(data.base64EncodedString())
        case .date(let date):
            return quotedJSON((try? DateBridge().serialize(date))?.flatMap(\.stringValue) ?? "\(date)")
        case .array(let items): return "[" + items.map(json).joined(separator: ",") + "]"
        case .dictionary(let entries):
            return "{"
                + entries.sorted { $0.key < $1.key }.map { quotedJSON($0.key) + ":" + json($0.value) }
                .joined(separator: ",") + "}"
        }
    }

    /// The type name `read-type` prints.
    static func typeName(_ value: PropertyListValue) -> String {
        switch value {
        case .string: "string"
        case .bool: "boolean"
        case .integer, .unsignedInteger: "integer"
        case .double: "float"
        case .data: "data"
        case .date: "date"
        case .array: "array"
        case .dictionary: "dictionary"
        }
    }

    /// macOS's layout, which is Foundation's `description` of collections: a collection nested at `level`
    /// starts with that level's indentation even after `key = `, so a nested dictionary reads `key =     {`,
    /// and an empty one closes at its own level (`    };`), not in column 0.
    private static func oldStyle(_ value: PropertyListValue, level: Int) -> String {
        let indent = String(repeating: " ", count: 4 * level)
        let inner = indent + "    "
        switch value {
        case .string(let string): return quotedIfNeeded(string)
        case .bool(let bool): return bool ? "1" : "0"
        case .integer(let integer): return String(integer)
        case .unsignedInteger(let integer): return String(integer)
        case .double(let double): return macOSNumber(double)
        case .data(let data): return "<" + data.map { String(format: "%02x", $0) }.joined() + ">"
        case .date(let date): return quotedIfNeeded(macOSDate(date))
        case .array(let items):
            let lines = items.map { inner + oldStyle($0, level: level + 1) }.joined(separator: ",\n")
            return indent + "(\n" + lines + (items.isEmpty ? "" : "\n") + indent + ")"
        case .dictionary(let entries):
            let lines = entries.sorted { $0.key < $1.key }
                .map { inner + quotedIfNeeded($0.key) + " = " + oldStyle($0.value, level: level + 1) + ";\n" }
            return indent + "{\n" + lines.joined() + indent + "}"
        }
    }

    /// A real as macOS's `defaults` prints it: a whole number without `.0` (`1`, not `1.0`), others in the
    /// shortest form that reads back exactly.
    static func macOSNumber(_ double: Double) -> String {
        guard double.isFinite, double == double.rounded(), abs(double) < 1e15 else { return String(double) }
        return (double.sign == .minus && double == 0 ? "-" : "") + String(Int64(double))
    }

    /// A date as macOS's `defaults` prints it: `2026-11-21 08:26:05 +0000`, in UTC, to the second.
    static func macOSDate(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02d %02d:%02d:%02d +0000",
            parts.tm_year + 1900,
            parts.tm_mon + 1,
            parts.tm_mday,
            parts.tm_hour,
            parts.tm_min,
            parts.tm_sec
        )
    }

    private static let bare = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.$/:-"
    )

    private static func quotedIfNeeded(_ string: String) -> String {
        if !string.isEmpty, string.unicodeScalars.allSatisfy({ bare.contains($0) }) { return string }
        let escaped = string.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\t", with: "\\t")
        return "\"" + escaped + "\""
    }

    private static func quotedJSON(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case let control where control.value < 0x20: result += String(format: "\\u%04x", control.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
