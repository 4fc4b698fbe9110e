import Foundation

/// Stores a `RawRepresentable` value (an enum with a raw type, say) as its raw value.
///
/// Reading also accepts the raw value as a JSON-quoted string (`"\"dark\""`), which is how
/// sindresorhus/Defaults stores a `Codable` enum, so settings survive a switch of library. For a type that is
/// also `Codable`, a stored string or data that is not a raw value is then decoded as JSON, which reads what
/// sindresorhus/Defaults writes for a type whose `Codable` form is not its raw value. Either fallback runs
/// only when the stored value is not a raw value, so it never changes what a raw value reads as.
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

    /// The slow path: a JSON-quoted raw value (as sindresorhus/Defaults writes enums), the JSON of a `Codable`
    /// type, or an error naming the raw value that matches no value.
    @usableFromInline
    func deserializeQuotedOrReport(_ stored: PropertyListValue, rawValue: Value.RawValue?) throws -> Value? {
        if case .string(let text) = stored, let unquoted = PropertyListValue.unquotedJSONString(text),
            let raw = try Value.RawValue.bridge.deserialize(.string(unquoted)), let value = Value(rawValue: raw)
        {
            return value
        }
        if let decodable = Value.self as? any Decodable.Type, let value = Self.decodeJSON(stored, as: decodable) {
            return value
        }
        guard let rawValue else { return nil }
        throw DefaultsBridgeError("\(String(reflecting: rawValue)) is not a raw value of \(Value.self)")
    }

    /// The value a stored JSON string or JSON data decodes to, or `nil`.
    private static func decodeJSON<Decoded: Decodable>(_ stored: PropertyListValue, as _: Decoded.Type) -> Value? {
        let json: Data
        switch stored {
        case .string(let text): json = Data(text.utf8)
        case .data(let data): json = data
        default: return nil
        }
        // The limit CodableBridge keeps: JSONDecoder recurses once per level.
        if json.withUnsafeBytes({ NestingCheck.jsonNestsDeeper($0, than: codableNestingLimit) }) { return nil }
        return (try? JSONDecoder().decode(Decoded.self, from: json)) as? Value
    }
}
