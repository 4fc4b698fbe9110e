import Foundation

// Primitives are stored natively. When reading, a string that spells the value exactly is accepted too, by
// the text rules in Model/PropertyListValue+Text.swift: that is what `defaults write domain key 3` stores, and
// it is how launch arguments (`-count 3`) become typed.

/// Stores a `String` as a `<string>`.
///
/// Strings that a property list cannot carry (control characters other than tab, newline and carriage
/// return, `U+FFFE`, `U+FFFF`) are refused when written, so the file stays readable by every plist reader.
///
/// ## Usage
/// ```swift
/// let name = Key<String>("name", default: "")
/// Defaults[key: name] = "Ann"
/// ```
public struct StringBridge: DefaultsBridge {
    /// Creates the bridge.
    @inlinable
    public init() {}

    /// Returns `.string(value)`.
    @inlinable
    public func serialize(_ value: String) -> PropertyListValue? { .string(value) }

    /// Returns the string of a `.string`, and `nil` for anything else.
    @inlinable
    public func deserialize(_ stored: PropertyListValue) -> String? { stored.stringValue }
}

/// Stores a `Bool` as `<true/>` or `<false/>`.
///
/// Reading also accepts the integers 0 and 1 and the strings `YES`/`NO`, `Y`/`N`, `true`/`false`, `T`/`F` and
/// `1`/`0` (in any case), as macOS's `defaults` tool and launch arguments spell them.
///
/// ## Usage
/// ```swift
/// let flag = Key<Bool>("flag", default: false)
/// Defaults[key: flag].toggle()
/// ```
public struct BoolBridge: DefaultsBridge {
    /// Creates the bridge.
    @inlinable
    public init() {}

    /// Returns `.bool(value)`.
    @inlinable
    public func serialize(_ value: Bool) -> PropertyListValue? { .bool(value) }

    /// Returns the Boolean a stored value spells, or `nil`.
    @inlinable
    public func deserialize(_ stored: PropertyListValue) -> Bool? {
        switch stored {
        case .bool(let value): return value
        case .integer(0): return false
        case .integer(1): return true
        case .string(let text): return PropertyListValue.bool(fromText: text)
        default: return nil
        }
    }
}

/// Stores any fixed-width integer as an `<integer>`, exactly.
///
/// Values above `Int64.max` (only `UInt64` and `UInt` reach them) are stored as unsigned integers, which
/// Foundation reads back unchanged. Reading checks the range: a stored 300 is not an `Int8`, and reports a
/// diagnostic instead of wrapping. An integral `<real>` (such as `3.0`) and a decimal string are accepted.
///
/// ## Usage
/// ```swift
/// let launches = Key<UInt64>("launches", default: 0)
/// Defaults[key: launches] += 1
/// ```
public struct IntegerBridge<Value: FixedWidthInteger & Sendable>: DefaultsBridge {
    /// Creates the bridge.
    @inlinable
    public init() {}

    /// Returns `.integer`, or `.unsignedInteger` for values above `Int64.max`.
    @inlinable
    public func serialize(_ value: Value) throws -> PropertyListValue? {
        if let signed = Int64(exactly: value) { return .integer(signed) }
        if let unsigned = UInt64(exactly: value) { return .unsignedInteger(unsigned) }
        throw DefaultsBridgeError("\(value) does not fit in a property-list integer")
    }

    /// Returns the integer a stored value holds if it fits in `Value`, or `nil`.
    @inlinable
    public func deserialize(_ stored: PropertyListValue) -> Value? {
        switch stored {
        case .integer(let value): Value(exactly: value)
        case .unsignedInteger(let value): Value(exactly: value)
        case .double(let value): Value(exactly: value)
        case .string(let text): PropertyListValue.integer(fromText: text, as: Value.self)
        default: nil
        }
    }
}

/// Stores `Double`, `Float` and `CGFloat` as a `<real>`, exactly, including infinities and NaN.
///
/// Foundation's XML writer on Linux turns `-0.0` into `0.0`, so negative zero is stored as the string
/// `"-0.0"`. A property list's `<real>` holds one NaN (XML writes every NaN as `nan`), so a NaN with a sign or
/// a payload is stored as its bits in text, `"nan:0x"` and the type's bits in hexadecimal
/// (`"nan:0xfff8000000000000"` for `-Double.nan`), and reads back bit for bit. A `Float` is widened to
/// `Double` (exact) and narrowed back when read. Reading also accepts
/// integers and strings such as `"0.5"`, `"-3"`, `"inf"` and `"nan"`.
///
/// ## Usage
/// ```swift
/// let volume = Key<Double>("volume", default: 0.5)
/// Defaults[key: volume] -= 0.1
/// ```
public struct FloatingPointBridge<Value: BinaryFloatingPoint & Sendable>: DefaultsBridge {
    /// Creates the bridge.
    @inlinable
    public init() {}

    /// Returns `.double`; `.string("-0.0")` for negative zero, and for a NaN with a sign or a payload its
    /// bits as text (`"nan:0x7ff0000000000001"`), since a property list's `<real>` carries neither.
    @inlinable
    public func serialize(_ value: Value) -> PropertyListValue? {
        if value.isNaN, let text = Self.nanText(value) { return .string(text) }
        let double = Double(value)
        if double == 0 && double.sign == .minus { return .string("-0.0") }
        return .double(double)
    }

    /// Returns the number a stored value holds, or `nil`.
    @inlinable
    public func deserialize(_ stored: PropertyListValue) -> Value? {
        switch stored {
        case .double(let value): Value(value)
        case .integer(let value): Value(value)
        case .unsignedInteger(let value): Value(value)
        case .string(let text): Self.nan(fromText: text) ?? PropertyListValue.double(fromText: text).map(Value.init)
        default: nil
        }
    }
}

/// Stores `Data` as a `<data>` blob.
///
/// ## Usage
/// ```swift
/// let token = Key<Data?>("token")
/// Defaults[key: token] = Data([0xCA, 0xFE])
/// ```
public struct DataBridge: DefaultsBridge {
    /// Creates the bridge.
    @inlinable
    public init() {}

    /// Returns `.data(value)`.
    @inlinable
    public func serialize(_ value: Data) -> PropertyListValue? { .data(value) }

    /// Returns the bytes of a `.data`, and `nil` for anything else.
    @inlinable
    public func deserialize(_ stored: PropertyListValue) -> Data? {
        if case .data(let value) = stored { value } else { nil }
    }
}

extension String: DefaultsSerializable {
    /// Stores strings natively.
    @inlinable
    public static var bridge: StringBridge { StringBridge() }
}

extension Bool: DefaultsSerializable {
    /// Stores Booleans natively.
    @inlinable
    public static var bridge: BoolBridge { BoolBridge() }
}

extension Data: DefaultsSerializable {
    /// Stores bytes natively.
    @inlinable
    public static var bridge: DataBridge { DataBridge() }
}

extension Double: DefaultsSerializable {
    /// Stores doubles natively.
    @inlinable
    public static var bridge: FloatingPointBridge<Double> { FloatingPointBridge() }
}

extension Float: DefaultsSerializable {
    /// Stores floats as doubles.
    @inlinable
    public static var bridge: FloatingPointBridge<Float> { FloatingPointBridge() }
}

extension CGFloat: DefaultsSerializable {
    /// Stores `CGFloat` as a double (Foundation itself crashes storing a `CGFloat` on Linux).
    @inlinable
    public static var bridge: FloatingPointBridge<CGFloat> { FloatingPointBridge() }
}

extension Int: DefaultsSerializable {
    /// Stores integers natively.
    @inlinable
    public static var bridge: IntegerBridge<Int> { IntegerBridge() }
}

extension Int8: DefaultsSerializable {
    /// Stores integers natively.
    @inlinable
    public static var bridge: IntegerBridge<Int8> { IntegerBridge() }
}

extension Int16: DefaultsSerializable {
    /// Stores integers natively.
    @inlinable
    public static var bridge: IntegerBridge<Int16> { IntegerBridge() }
}

extension Int32: DefaultsSerializable {
    /// Stores integers natively.
    @inlinable
    public static var bridge: IntegerBridge<Int32> { IntegerBridge() }
}

extension Int64: DefaultsSerializable {
    /// Stores integers natively.
    @inlinable
    public static var bridge: IntegerBridge<Int64> { IntegerBridge() }
}

extension UInt: DefaultsSerializable {
    /// Stores integers natively.
    @inlinable
    public static var bridge: IntegerBridge<UInt> { IntegerBridge() }
}

extension UInt8: DefaultsSerializable {
    /// Stores integers natively.
    @inlinable
    public static var bridge: IntegerBridge<UInt8> { IntegerBridge() }
}

extension UInt16: DefaultsSerializable {
    /// Stores integers natively.
    @inlinable
    public static var bridge: IntegerBridge<UInt16> { IntegerBridge() }
}

extension UInt32: DefaultsSerializable {
    /// Stores integers natively.
    @inlinable
    public static var bridge: IntegerBridge<UInt32> { IntegerBridge() }
}

extension UInt64: DefaultsSerializable {
    /// Stores integers natively, above `Int64.max` too.
    @inlinable
    public static var bridge: IntegerBridge<UInt64> { IntegerBridge() }
}
