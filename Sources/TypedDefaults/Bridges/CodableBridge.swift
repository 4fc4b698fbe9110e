import Foundation

/// Stores a `Codable` value as a JSON string with sorted keys, such as `{"name":"Ann","tags":["a"]}`.
///
/// Why JSON text rather than a native property-list tree: it is one readable line in the plist; JSON keeps
/// every `Double` exactly and a `Date` to the full precision of its `Double` (the XML plist writer on Linux
/// keeps whole seconds); and it is what sindresorhus/Defaults writes, so settings survive a switch.
/// A value JSON cannot hold (a `Double.nan` inside, say) is refused with a ``DefaultsError``.
///
/// Reading also accepts JSON as `<data>` (what SwiftyUserDefaults writes).
///
/// ## Usage
/// ```swift
/// struct Profile: Codable { var name: String; var tags: [String] }
/// extension Profile: DefaultsSerializable {}   // uses this bridge
/// ```
public struct CodableBridge<Value: Codable>: DefaultsBridge {
    /// Creates the bridge.
    @inlinable
    public init() {}

    /// Decoding parses, so reads keep the decoded value.
    @inlinable
    public var decodesAtACost: Bool { true }

    /// Returns the value encoded as a JSON string.
    public func serialize(_ value: Value) throws -> PropertyListValue? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return .string(String(decoding: try encoder.encode(value), as: UTF8.self))
        } catch let error as EncodingError {
            throw DefaultsBridgeError("\(Value.self) cannot be encoded as JSON: \(error.reason)")
        }
    }

    /// Returns the value decoded from a JSON string or JSON data; throws with the decoder's reason.
    public func deserialize(_ stored: PropertyListValue) throws -> Value? {
        let json: Data
        switch stored {
        case .string(let text): json = Data(text.utf8)
        case .data(let data): json = data
        default: return nil
        }
        do {
            return try JSONDecoder().decode(Value.self, from: json)
        } catch let error as DecodingError {
            throw DefaultsBridgeError("the JSON does not decode as \(Value.self): \(error.reason)")
        }
    }
}

extension EncodingError {
    fileprivate var reason: String {
        switch self {
        case .invalidValue(let value, let context):
            "\(value) at \(context.pathDescription): \(context.debugDescription)"
        @unknown default: "\(self)"
        }
    }
}

extension DecodingError {
    fileprivate var reason: String {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            "\(context.debugDescription) (at \(context.pathDescription))"
        case .keyNotFound(let key, let context):
            "missing key \(String(reflecting: key.stringValue)) (at \(context.pathDescription))"
        @unknown default: "\(self)"
        }
    }
}

extension EncodingError.Context {
    fileprivate var pathDescription: String { codingPath.pathDescription }
}

extension DecodingError.Context {
    fileprivate var pathDescription: String { codingPath.pathDescription }
}

extension [any CodingKey] {
    fileprivate var pathDescription: String {
        isEmpty ? "the top level" : map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}
