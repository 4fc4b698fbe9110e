import Foundation

/// A type that can be stored in defaults: it names the ``DefaultsBridge`` that stores it.
///
/// The built-in types (strings, numbers, `Bool`, `Data`, `Date`, `URL`, `UUID`, `Decimal`, ranges, optionals,
/// arrays, sets and dictionaries of supported types) already conform. Your own types need one line:
///
/// - a `RawRepresentable` type whose raw value is supported is stored as its raw value;
/// - a `Codable` type is stored as a JSON string;
/// - an `NSObject` that adopts `NSSecureCoding` is stored as a keyed archive, and so is one that adopts only
///   `NSCoding` (see ``KeyedArchiveBridge`` for what that gives up);
/// - a collection or set algebra that adopts ``DefaultsCollectionSerializable`` or
///   ``DefaultsSetAlgebraSerializable`` is stored as an array of its elements.
///
/// A type that is two of these gets one bridge by a fixed rule, so `extension T: DefaultsSerializable {}`
/// always compiles:
///
/// | the type is | stored as | why |
/// |---|---|---|
/// | `RawRepresentable` and `Codable` (a `String` enum, say) | its raw value, `"dark"` | what a person expects to see in the file; the JSON that sindresorhus/Defaults writes for such a type reads too |
/// | `Codable` and `NSObject & NSSecureCoding` (or `NSCoding`) | JSON | readable, and what sindresorhus/Defaults writes for such a type |
/// | `Codable` and ``DefaultsCollectionSerializable`` or ``DefaultsSetAlgebraSerializable`` | an array of its elements | the protocol was adopted for that |
///
/// A class that is not `final` (`NSColor`, `UIColor`, your own) conforms too. Its bridge stores that class:
/// a subclass that inherits the conformance is refused on write with
/// ``DefaultsError/valueNotStorable(key:type:reason:)`` and reads as a mismatch, so keep such values in a key
/// of the class that conforms.
///
/// A type chooses the other form with one line in its conformance, naming the bridge it wants (a class names
/// itself, as in `SecureCodingBridge<Bookmark>`: Swift allows no `Self` there in a class).
///
/// ## Usage
/// ```swift
/// enum Theme: String, Codable { case light, dark, system }
/// struct Profile: Codable { var name: String; var tags: [String] }
///
/// extension Theme: DefaultsSerializable {}    // stored as "dark"
/// extension Profile: DefaultsSerializable {}  // stored as {"name":"Ann","tags":["a"]}
///
/// enum Level: Int, Codable { case low, high }
/// extension Level: DefaultsSerializable {
///     static var bridge: CodableBridge<Self> { .init() }   // JSON rather than the raw value
/// }
///
/// final class Bookmark: NSObject, NSSecureCoding, Codable { ... }
/// extension Bookmark: DefaultsSerializable {
///     static var bridge: SecureCodingBridge<Bookmark> { .init() }   // a keyed archive rather than JSON
/// }
/// ```
public protocol DefaultsSerializable {
    // No `where Bridge.Value == Self`: Swift 6 lets no class that is not final conform to a protocol that
    // requires it. `storedForm(of:)` and `value(fromStoredForm:)` check it instead, for free once specialized.

    /// The bridge that stores this type.
    associatedtype Bridge: DefaultsBridge

    /// The bridge that stores this type.
    static var bridge: Bridge { get }
}

extension DefaultsSerializable {
    /// The stored form of `value`, made by the type's bridge; `nil` to store nothing.
    ///
    /// What a bridge of a container calls for each of its elements.
    ///
    /// ```swift
    /// let form = try Int.storedForm(of: 42)   // .integer(42)
    /// ```
    @inlinable
    public static func storedForm(of value: Self) throws -> PropertyListValue? {
        guard Bridge.Value.self == Self.self else { throw bridgeOfAnotherType() }
        return try bridge.serialize(unsafeBitCast(value, to: Bridge.Value.self))
    }

    /// The value a stored form stands for, read by the type's bridge; `nil` if it does not stand for one.
    ///
    /// ```swift
    /// let number = try Int.value(fromStoredForm: .integer(42))   // 42
    /// ```
    @inlinable
    public static func value(fromStoredForm stored: PropertyListValue) throws -> Self? {
        guard let value = try bridge.deserialize(stored) else { return nil }
        guard let same = value as? Self else { throw bridgeOfAnotherType() }
        return same
    }

    @usableFromInline
    static func bridgeOfAnotherType() -> DefaultsBridgeError {
        DefaultsBridgeError(
            "\(Self.self) is stored by the bridge of \(Bridge.Value.self) (a subclass inherits its superclass's "
                + "conformance); keep the value in a key of \(Bridge.Value.self)"
        )
    }
}

extension DefaultsSerializable where Self: Codable {
    /// Stores the value as a JSON string.
    @inlinable
    public static var bridge: CodableBridge<Self> { CodableBridge() }
}

extension DefaultsSerializable where Self: RawRepresentable, RawValue: DefaultsSerializable {
    /// Stores the value as its raw value.
    @inlinable
    public static var bridge: RawRepresentableBridge<Self> { RawRepresentableBridge() }
}

extension DefaultsSerializable where Self: RawRepresentable & Codable, RawValue: DefaultsSerializable {
    /// Stores the value as its raw value: for a type that is both, the raw value wins.
    @inlinable
    public static var bridge: RawRepresentableBridge<Self> { RawRepresentableBridge() }
}

extension DefaultsSerializable where Self: NSObject & NSSecureCoding {
    /// Stores the object as a keyed archive.
    @inlinable
    public static var bridge: SecureCodingBridge<Self> { SecureCodingBridge() }
}

extension DefaultsSerializable where Self: NSObject & NSCoding {
    /// Stores the object as a keyed archive; ``SecureCodingBridge`` is chosen instead when the class adopts
    /// `NSSecureCoding`.
    @inlinable
    public static var bridge: KeyedArchiveBridge<Self> { KeyedArchiveBridge() }
}

extension DefaultsSerializable where Self: NSObject & NSCoding & Codable {
    /// Stores the object as a JSON string: for a class that is both, `Codable` wins.
    @inlinable
    public static var bridge: CodableBridge<Self> { CodableBridge() }
}

extension DefaultsSerializable where Self: NSObject & NSSecureCoding & Codable {
    /// Stores the object as a JSON string: for a class that is both, `Codable` wins.
    @inlinable
    public static var bridge: CodableBridge<Self> { CodableBridge() }
}
