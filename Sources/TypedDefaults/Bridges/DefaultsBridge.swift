/// Converts values of one type to and from the ``PropertyListValue`` a suite stores.
///
/// Every supported type, built in or yours, is one bridge; the adapter and the storage never special-case
/// a type. Write a bridge when a type needs its own stored form, then name it in the type's
/// ``DefaultsSerializable`` conformance.
///
/// - `serialize(_:)` returns `nil` to mean "store nothing": the key is removed (this is how `Optional` stores
///   `nil`). It throws ``DefaultsBridgeError`` (or any error) for a value that has no stored form; the write is
///   then refused and the old value stays.
/// - `deserialize(_:)` returns `nil` when the stored value is not a `Value` (another program wrote the key,
///   say). Throw instead to give a more precise reason; either way the reader gets the key's default and a
///   diagnostic names the key, what was found and what was expected.
///
/// ## Usage
/// ```swift
/// struct Frog { var name: String }
///
/// struct FrogBridge: DefaultsBridge {
///     func serialize(_ frog: Frog) -> PropertyListValue? { .string(frog.name) }
///     func deserialize(_ stored: PropertyListValue) -> Frog? {
///         stored.stringValue.map(Frog.init(name:))
///     }
/// }
///
/// extension Frog: DefaultsSerializable {
///     static var bridge: FrogBridge { FrogBridge() }
/// }
/// ```
public protocol DefaultsBridge<Value>: Sendable {
    /// The type this bridge stores.
    associatedtype Value

    /// Returns the stored form of `value`, or `nil` to store nothing (remove the key).
    func serialize(_ value: Value) throws -> PropertyListValue?

    /// Returns the value a stored form stands for, or `nil` if it does not stand for a `Value`.
    func deserialize(_ stored: PropertyListValue) throws -> Value?

    /// Whether reads should keep the decoded value and hand it out again while the stored form is unchanged,
    /// rather than decode on every read: `true` for costly decoding (JSON, parsing text, collections) of value
    /// types. The default is `false`.
    var decodesAtACost: Bool { get }
}

extension DefaultsBridge {
    /// `false`: decoding is cheap enough to do on every read.
    @inlinable
    public var decodesAtACost: Bool { false }
}
