import Foundation
import TypedDefaults

/// How the tool prints values: macOS `defaults` style (old-style property lists), or JSON with `--json`.
enum Output {
    /// A value as `read` prints it; a lone string prints bare, as macOS does.
    static func text(_ value: PropertyListValue, topLevel: Bool = true) -> String {
        if topLevel, case .string(let string) = value { return string }
        return oldStyle(value, indent: "")
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

    private static func oldStyle(_ value: PropertyListValue, indent: String) -> String {
        let inner = indent + "    "
        switch value {
        case .string(let string): return quotedIfNeeded(string)
        case .bool(let bool): return bool ? "1" : "0"
        case .integer(let integer): return String(integer)
        case .unsignedInteger(let integer): return String(integer)
        case .double(let double): return String(double)
        case .data(let data): return "<" + data.map { String(format: "%02x", $0) }.joined() + ">"
        case .date(let date):
            return quotedIfNeeded((try? DateBridge().serialize(date))?.flatMap(\.stringValue) ?? "\(date)")
        case .array(let items):
            guard !items.isEmpty else { return "()" }
            return "(\n" + items.map { inner + oldStyle($0, indent: inner) }.joined(separator: ",\n") + "\n" + indent
                + ")"
        case .dictionary(let entries):
            guard !entries.isEmpty else { return "{\n}" }
            return "{\n"
                + entries.sorted { $0.key < $1.key }
                .map { inner + quotedIfNeeded($0.key) + " = " + oldStyle($0.value, indent: inner) + ";\n" }.joined()
                + indent + "}"
        }
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
