import Foundation

/// Stores an `NSSecureCoding` object as a keyed archive (`<data>`), made with `NSKeyedArchiver`.
///
/// Works for the classes Foundation's keyed archiver supports on the platform, and for your own `NSObject`
/// subclasses that adopt `NSSecureCoding`. Archives that do not unarchive as the expected class read as a
/// mismatch (default value plus a diagnostic), never as a crash.
///
/// On Linux, Foundation's archiver can only name top-level classes, and it stops the process on anything
/// else. So there a value is refused with ``DefaultsError/valueNotStorable(key:type:reason:)`` when its class,
/// or the class of an object it encodes, is private, nested, local or generic (or inherits from such a class),
/// or does not adopt `NSSecureCoding`; a key of such a class reads as a mismatch.
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
        #if canImport(Darwin)
        .data(try NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: true))
        #else
        .data(try KeyedArchiveGuard.archive(value, maximumDepth: KeyedArchiveBridge<Value>.maximumDepth))
        #endif
    }

    /// Returns the object unarchived from stored data; throws if the archive does not hold a `Value`.
    public func deserialize(_ stored: PropertyListValue) throws -> Value? {
        guard case .data(let archive) = stored else { return nil }
        #if !canImport(Darwin)
        try KeyedArchiveGuard.checkReadable(archive, as: Value.self)
        try KeyedArchiveGuard.checkRootClass(of: archive, expected: Value.self)
        // What the unarchiver on Linux would stop the process on: cycles, deep nesting, Foundation classes
        // without the fields their initializers read.
        try ArchivedObjects(BinaryPropertyListReader(archive))
            .checkReferences(
                maximumDepth: KeyedArchiveBridge<Value>.maximumDepth
            )
        #endif
        do {
            return try NSKeyedUnarchiver.unarchivedObject(ofClass: Value.self, from: archive)
        } catch {
            throw DefaultsBridgeError("the keyed archive does not hold a \(Value.self): \(error.localizedDescription)")
        }
    }
}
