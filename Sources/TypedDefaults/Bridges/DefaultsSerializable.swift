import Foundation

/// A type that can be stored in defaults: it names the ``DefaultsBridge`` that stores it.
///
/// The built-in types (strings, numbers, `Bool`, `Data`, `Date`, `URL`, `UUID`, `Decimal`, optionals,
/// arrays, sets and dictionaries of supported types) already conform. Your own types need one line:
///
/// - a `RawRepresentable` type whose raw value is supported is stored as its raw value;
/// - a `Codable` type is stored as a JSON string;
/// - a type that is both (a `String` enum that is also `Codable`) is stored as its raw value: the raw
///   value wins, because it is what a person expects to see in the file;
/// - an `NSObject` that adopts `NSSecureCoding` is stored as a keyed archive.
///
/// ## Usage
/// ```swift
/// enum Theme: String, Codable { case light, dark, system }
/// struct Profile: Codable { var name: String; var tags: [String] }
///
/// extension Theme: DefaultsSerializable {}    // stored as "dark"
/// extension Profile: DefaultsSerializable {}  // stored as {"name":"Ann","tags":["a"]}
/// ```
public protocol DefaultsSerializable {
    /// The bridge that stores this type.
    associatedtype Bridge: DefaultsBridge where Bridge.Value == Self

    /// The bridge that stores this type.
    static var bridge: Bridge { get }
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
