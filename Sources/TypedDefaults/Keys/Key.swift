/// A typed name for one setting: the name it is stored under, and the value to read when nothing is stored.
///
/// Keys are cheap values (a string and a default), so computed key properties that build a new key on
/// every access cost nothing worth measuring. Two keys are equal when their names are equal: the name is
/// what addresses the stored value.
///
/// Declare keys in one of two styles, or both:
/// - as properties of a key store such as ``DefaultsKeys``, read by key path: `Defaults[\.launchCount]`,
///   `Defaults.launchCount`;
/// - as static properties of `Key`, read by member: `Defaults[.launchCount]`, `@Default(.launchCount)`.
///   Swift allows no stored static property in a generic type, so these are computed (`static var`).
///
/// The default lives with the key, not in Foundation's process-wide `register(defaults:)` table, so one
/// suite's defaults never show up in another. It can be computed on every read instead of fixed: pass a
/// closure.
///
/// ## Usage
/// ```swift
/// extension DefaultsKeys {
///     var launchCount: Key<Int> { .init("launchCount", default: 0) }
///     var username: Key<String?> { .init("username") }   // an optional's default is nil
/// }
///
/// extension Key {
///     static var quality: Key<Double> { .init("quality", default: 0.8) }
///     static var deviceName: Key<String> { .init("deviceName") { ProcessInfo.processInfo.hostName } }
/// }
///
/// Defaults[\.launchCount] += 1
/// Defaults[.quality] = 0.5
/// ```
public struct Key<Value: DefaultsSerializable> {
    /// The name the value is stored under in the suite.
    public let name: String

    @usableFromInline let defaultSource: DefaultSource

    /// Where a key's default comes from.
    @usableFromInline enum DefaultSource {
        case fixed(Value)
        case computed(@Sendable () -> Value)
    }

    /// The value a read returns when the suite stores nothing usable for this key.
    ///
    /// For a key made with a closure, the closure's result at the time of the read.
    @inlinable
    public var defaultValue: Value {
        switch defaultSource {
        case .fixed(let value): value
        case .computed(let makeDefault): makeDefault()
        }
    }

    /// The default as diagnostics name it, without running a computed default (which could then differ from
    /// the one the read returns).
    @usableFromInline var defaultDescription: String {
        switch defaultSource {
        case .fixed(let value): "\(value)"
        case .computed: "(computed)"
        }
    }

    /// Creates a key with a name and a default value.
    @inlinable
    public init(_ name: String, default defaultValue: Value) {
        self.name = name
        self.defaultSource = .fixed(defaultValue)
    }

    /// Creates a key whose default is computed, on every read that finds nothing usable stored.
    ///
    /// The closure runs without any lock of the library held, so it may read other settings. Nothing is
    /// cached: a default that depends on the time or the machine is always current.
    ///
    /// ```swift
    /// let cacheSize = Key<Int>("cacheSize") { ProcessInfo.processInfo.physicalMemory > 8 << 30 ? 512 : 128 }
    /// ```
    @inlinable
    public init(_ name: String, default makeDefault: @escaping @Sendable () -> Value) {
        self.name = name
        self.defaultSource = .computed(makeDefault)
    }

    /// Creates a key for an optional value, whose default is `nil`.
    @inlinable
    public init<Wrapped>(_ name: String) where Value == Wrapped? {
        self.init(name, default: nil)
    }
}

// The enum holds a `Value` or a `@Sendable` closure, so it is `Sendable` when `Value` is.
extension Key.DefaultSource: Sendable where Value: Sendable {}
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
