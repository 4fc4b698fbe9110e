/// Stores a ``PropertyListValue`` as itself: for reading and writing a key whatever its type.
///
/// ## Usage
/// ```swift
/// let raw = Key<PropertyListValue?>("launchCount")
/// print(Defaults[key: raw]?.summary ?? "nothing stored")   // integer 3
/// ```
public struct PropertyListValueBridge: DefaultsBridge {
    /// Creates the bridge.
    public init() {}

    /// Returns `value`.
    public func serialize(_ value: PropertyListValue) -> PropertyListValue? { value }

    /// Returns `stored`.
    public func deserialize(_ stored: PropertyListValue) -> PropertyListValue? { stored }
}

extension PropertyListValue: DefaultsSerializable {
    /// Stores the value as it is.
    public static var bridge: PropertyListValueBridge { PropertyListValueBridge() }
}

// PropertyListValue as a dynamic value: any supported value goes in through its bridge, and comes out as any
// type whose bridge reads it (sindresorhus/Defaults' `AnySerializable.init(_:)`, `get` and `set`).
extension PropertyListValue {
    /// The stored form of `value`, made by its type's bridge: what a key of that type would store.
    ///
    /// Throws ``DefaultsBridgeError`` for a value that has no stored form: `nil`, or a value its bridge refuses
    /// (a `Codable` value holding `Double.nan`, say).
    ///
    /// ```swift
    /// enum Mime: String { case json = "application/json" }
    /// extension Mime: DefaultsSerializable {}
    ///
    /// let value = try PropertyListValue(Mime.json)   // .string("application/json")
    /// ```
    public init<Value: DefaultsSerializable>(_ value: Value) throws {
        guard let stored = try Value.bridge.serialize(value) else {
            throw DefaultsBridgeError("a \(Value.self) value that stores nothing (such as nil) has no stored form")
        }
        self = stored
    }

    /// The value this stands for as a `Value`, read by `Value`'s bridge; `nil` if that bridge does not read it.
    ///
    /// Every rule of the bridge applies, the same as for a key of type `Value`: an `.integer(1)` is `1.0` as
    /// a `Double` and `true` as a `Bool`, an integral `.double(3.0)` is `3` as an `Int` while `3.5` is no
    /// `Int`, the string `"3"` is `3` as an `Int`, and a JSON string is a `Codable` value.
    ///
    /// ```swift
    /// let value: PropertyListValue = 1
    /// value.get(Int.self)      // 1
    /// value.get(Double.self)   // 1.0
    /// value.get(String.self)   // nil
    /// let count: Int? = value.get()
    /// ```
    public func get<Value: DefaultsSerializable>(_ type: Value.Type = Value.self) -> Value? {
        (try? Value.bridge.deserialize(self)) ?? nil
    }

    /// Replaces this value with the stored form of `value`, made by its type's bridge.
    ///
    /// Throws, leaving this value as it was, for a value that has no stored form (see ``init(_:)``).
    ///
    /// ```swift
    /// var value: PropertyListValue = 1
    /// try value.set(Mime.json)   // .string("application/json")
    /// ```
    public mutating func set<Value: DefaultsSerializable>(_ value: Value) throws {
        self = try PropertyListValue(value)
    }
}
