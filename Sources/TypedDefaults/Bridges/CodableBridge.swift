import Foundation

/// Stores a `Codable` value as a JSON string with sorted keys, such as `{"name":"Ann","tags":["a"]}`.
///
/// Why JSON text rather than a native property-list tree: it is one readable line in the plist; JSON keeps
/// every `Double` exactly and a `Date` to the full precision of its `Double` (the XML plist writer on Linux
/// keeps whole seconds); and it is what sindresorhus/Defaults writes, so settings survive a switch.
/// A value JSON cannot hold (a `Double.nan` inside, say) is refused with a ``DefaultsError``, and so is one
/// nested more than ``maximumNestingDepth`` levels deep, which could otherwise overflow the stack while it is
/// encoded. Error messages name the type, the limit and the start of the coding path, never the value.
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

    /// How many levels deep a `Codable` value may nest: 256.
    ///
    /// Each keyed or unkeyed container inside another (a JSON object or array) is a level, and so is a value
    /// encoded through a single-value container (an `Optional` inside an array, say), because the encoder recurses
    /// into it too. A deeper value is refused with ``DefaultsError/valueNotStorable(key:type:reason:)`` before the
    /// JSON encoder runs, and stored JSON nested deeper reads as a mismatch (the key's default and a diagnostic).
    /// Checking the depth runs the value's `encode(to:)` once more, writing nothing.
    ///
    /// ```swift
    /// indirect enum Tree: Codable { case leaf, node(Tree) }   // .node(.node(.leaf)) nests 6 levels
    /// print(CodableBridge<Tree>.maximumNestingDepth)          // 256
    /// ```
    public static var maximumNestingDepth: Int { codableNestingLimit }

    /// Decoding parses, so reads keep the decoded value.
    @inlinable
    public var decodesAtACost: Bool { true }

    /// Returns the value encoded as a JSON string.
    public func serialize(_ value: Value) throws -> PropertyListValue? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            try NestingCheck.check(value, limit: codableNestingLimit)
            return .string(String(decoding: try encoder.encode(value), as: UTF8.self))
        } catch let error as NestingTooDeep {
            throw DefaultsBridgeError(
                "\(Value.self) nests more than \(codableNestingLimit) levels deep (at "
                    + "\(CodingPathText.describe(error.path))), the limit for Codable values"
            )
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
        // JSONDecoder recurses once per level (it refuses more than 512 itself, but that is a lot of stack on a
        // small thread); a value this bridge would not write is not read either.
        if json.withUnsafeBytes({ NestingCheck.jsonNestsDeeper($0, than: codableNestingLimit) }) {
            throw DefaultsBridgeError(
                "the JSON nests more than \(codableNestingLimit) levels deep, the limit for Codable values"
            )
        }
        do {
            return try JSONDecoder().decode(Value.self, from: json)
        } catch let error as DecodingError {
            throw DefaultsBridgeError("the JSON does not decode as \(Value.self): \(error.reason)")
        }
    }
}

extension EncodingError {
    // Never the value itself: its description can be as long as the value is deep.
    fileprivate var reason: String {
        switch self {
        case .invalidValue(_, let context):
            "\(shortened(context.debugDescription)) (at \(CodingPathText.describe(context.codingPath)))"
        @unknown default: shortened("\(self)")
        }
    }
}

extension DecodingError {
    fileprivate var reason: String {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            "\(shortened(context.debugDescription)) (at \(CodingPathText.describe(context.codingPath)))"
        case .keyNotFound(let key, let context):
            "missing key \(String(reflecting: CodingPathText.key(key))) "
                + "(at \(CodingPathText.describe(context.codingPath)))"
        @unknown default: shortened("\(self)")
        }
    }
}

/// `text`, cut to a length a one-line message can carry.
private func shortened(_ text: String, to length: Int = 160) -> String {
    text.count > length ? String(text.prefix(length)) + "…" : text
}
