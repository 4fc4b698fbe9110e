/// A typed name for one setting: the name it is stored under, and the value to read when nothing is stored.
///
/// Keys are cheap values (a string and a default), so computed key properties that build a new key on
/// every access cost nothing worth measuring. Two keys are equal when their names are equal: the name is
/// what addresses the stored value.
///
/// The default lives with the key, not in Foundation's process-wide `register(defaults:)` table, so one
/// suite's defaults never show up in another.
///
/// ## Usage
/// ```swift
/// extension DefaultsKeys {
///     var launchCount: Key<Int> { .init("launchCount", default: 0) }
///     var username: Key<String?> { .init("username") }   // an optional's default is nil
/// }
///
/// let flag = Key<Bool>("flag", default: false)           // a key need not live in DefaultsKeys
/// Defaults[key: flag] = true
/// ```
public struct Key<Value: DefaultsSerializable> {
    /// The name the value is stored under in the suite.
    public let name: String

    /// The value a read returns when the suite stores nothing usable for this key.
    public let defaultValue: Value

    /// Creates a key with a name and a default value.
    @inlinable
    public init(_ name: String, default defaultValue: Value) {
        self.name = name
        self.defaultValue = defaultValue
    }

    /// Creates a key for an optional value, whose default is `nil`.
    @inlinable
    public init<Wrapped>(_ name: String) where Value == Wrapped? {
        self.init(name, default: nil)
    }
}

extension Key: Sendable where Value: Sendable {}

extension Key: Hashable {
    /// Keys are equal when their names are equal.
    public static func == (lhs: Key, rhs: Key) -> Bool { lhs.name == rhs.name }

    /// Hashes the name.
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

extension Key: CustomStringConvertible {
    /// The key's name and value type, such as `Key<Int>("launchCount")`.
    public var description: String { "Key<\(Value.self)>(\(String(reflecting: name)))" }
}
