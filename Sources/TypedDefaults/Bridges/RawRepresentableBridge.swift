/// Stores a `RawRepresentable` value (an enum with a raw type, say) as its raw value.
///
/// Reading also accepts the raw value as a JSON-quoted string (`"\"dark\""`), which is how
/// sindresorhus/Defaults stores a `Codable` enum, so settings survive a switch of library.
///
/// ## Usage
/// ```swift
/// enum Theme: String { case light, dark, system }
/// extension Theme: DefaultsSerializable {}   // uses this bridge
/// ```
public struct RawRepresentableBridge<Value: RawRepresentable>: DefaultsBridge
where Value.RawValue: DefaultsSerializable {
    /// Creates the bridge.
    @inlinable
    public init() {}

    /// As costly as the raw value's decoding.
    @inlinable
    public var decodesAtACost: Bool { Value.RawValue.bridge.decodesAtACost }

    /// Returns the raw value's stored form.
    @inlinable
    public func serialize(_ value: Value) throws -> PropertyListValue? {
        try Value.RawValue.bridge.serialize(value.rawValue)
    }

    /// Returns the value whose raw value is stored; throws when the raw value names no value.
    @inlinable
    public func deserialize(_ stored: PropertyListValue) throws -> Value? {
        let rawValue = try Value.RawValue.bridge.deserialize(stored)
        if let rawValue, let value = Value(rawValue: rawValue) { return value }
        return try deserializeQuotedOrReport(stored, rawValue: rawValue)
    }

    /// The slow path: a JSON-quoted raw value (as sindresorhus/Defaults writes enums), or an error naming the
    /// raw value that matches no value.
    @usableFromInline
    func deserializeQuotedOrReport(_ stored: PropertyListValue, rawValue: Value.RawValue?) throws -> Value? {
        if case .string(let text) = stored, let unquoted = PropertyListValue.unquotedJSONString(text),
            let raw = try Value.RawValue.bridge.deserialize(.string(unquoted)), let value = Value(rawValue: raw)
        {
            return value
        }
        guard let rawValue else { return nil }
        throw DefaultsBridgeError("\(String(reflecting: rawValue)) is not a raw value of \(Value.self)")
    }
}
