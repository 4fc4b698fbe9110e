import Foundation

/// Stores an `NSSecureCoding` object as a keyed archive (`<data>`), made with `NSKeyedArchiver`.
///
/// Works for the classes Foundation's keyed archiver supports on the platform, and for your own `NSObject`
/// subclasses that adopt `NSSecureCoding`. Archives that do not unarchive as the expected class read as a
/// mismatch (default value plus a diagnostic), never as a crash.
///
/// ## Usage
/// ```swift
/// final class Bookmark: NSObject, NSSecureCoding { ... }
/// extension Bookmark: DefaultsSerializable {}   // uses this bridge
/// ```
public struct SecureCodingBridge<Value: NSObject & NSSecureCoding>: DefaultsBridge {
    /// Creates the bridge.
    public init() {}

    /// Returns the object's keyed archive.
    public func serialize(_ value: Value) throws -> PropertyListValue? {
        .data(try NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: true))
    }

    /// Returns the object unarchived from stored data; throws if the archive does not hold a `Value`.
    public func deserialize(_ stored: PropertyListValue) throws -> Value? {
        guard case .data(let archive) = stored else { return nil }
        do {
            return try NSKeyedUnarchiver.unarchivedObject(ofClass: Value.self, from: archive)
        } catch {
            throw DefaultsBridgeError("the keyed archive does not hold a \(Value.self): \(error.localizedDescription)")
        }
    }
}
