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
