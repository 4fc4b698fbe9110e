import Foundation

/// A value as a suite stores it: the property-list types, and nothing else.
///
/// Bridges turn your values into a `PropertyListValue` and back. Because this enum can only hold what a
/// property list can hold, a value that Foundation would reject (and, on Linux, crash on) can never
/// reach the storage layer.
///
/// ## Usage
/// ```swift
/// struct FrogBridge: DefaultsBridge {
///     func serialize(_ frog: Frog) -> PropertyListValue? { .string(frog.name) }
///     func deserialize(_ stored: PropertyListValue) -> Frog? {
///         stored.stringValue.map(Frog.init(name:))
///     }
/// }
/// ```
public enum PropertyListValue: Sendable, Hashable {
    /// A `<string>`.
    case string(String)
    /// A `<true/>` or `<false/>`.
    case bool(Bool)
    /// An `<integer>` in the range of `Int64`.
    case integer(Int64)
    /// An `<integer>` above `Int64.max`.
    case unsignedInteger(UInt64)
    /// A `<real>`. On Linux the XML writer stores `-0.0` as `0.0`; ``FloatingPointBridge`` works around that.
    case double(Double)
    /// A `<data>` blob.
    case data(Data)
    /// A `<date>`. On Linux the XML writer keeps whole seconds only; ``DateBridge`` stores dates as text instead.
    case date(Date)
    /// An `<array>`.
    case array([PropertyListValue])
    /// A `<dict>` with string keys.
    case dictionary([String: PropertyListValue])
}

extension PropertyListValue {
    /// The string, if this is a `.string`.
    @inlinable
    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// A short description for diagnostics, such as `string "abc"` or `array of 3 elements`.
    public var summary: String {
        switch self {
        case .string(let value):
            let shown = value.count > 60 ? String(value.prefix(60)) + "…" : value
            return "string \(String(reflecting: shown))"
        case .bool(let value): return "bool \(value)"
        case .integer(let value): return "integer \(value)"
        case .unsignedInteger(let value): return "integer \(value)"
        case .double(let value): return "real \(value)"
        case .data(let value): return "data of \(value.count) bytes"
        case .date(let value): return "date \(value)"
        case .array(let value): return "array of \(value.count) elements"
        case .dictionary(let value): return "dictionary of \(value.count) entries"
        }
    }
}

extension PropertyListValue {
    /// Throws if the value holds a string that an XML property list cannot carry.
    ///
    /// XML 1.0 forbids control characters other than tab, newline and carriage return, and `U+FFFE` and
    /// `U+FFFF`. Foundation writes them anyway, and Python's `plistlib`, the `defaults` tool and every other
    /// XML reader then reject the whole file, so TypedDefaults refuses such strings instead.
    func checkStorable() throws(DefaultsBridgeError) {
        switch self {
        case .string(let text):
            try Self.checkText(text, what: "the string")
        case .array(let items):
            for item in items { try item.checkStorable() }
        case .dictionary(let entries):
            for (name, item) in entries {
                try Self.checkText(name, what: "the dictionary key")
                try item.checkStorable()
            }
        case .bool, .integer, .unsignedInteger, .double, .data, .date:
            break
        }
    }

    static func checkText(_ text: String, what: String) throws(DefaultsBridgeError) {
        for scalar in text.unicodeScalars where !isXMLCharacter(scalar) {
            let code = "U+" + String(scalar.value, radix: 16, uppercase: true)
            throw DefaultsBridgeError(
                "\(what) \(String(reflecting: text)) contains \(code), which an XML property list cannot hold"
            )
        }
    }

    private static func isXMLCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: true
        case 0..<0x20, 0xFFFE, 0xFFFF: false
        default: true
        }
    }
}
