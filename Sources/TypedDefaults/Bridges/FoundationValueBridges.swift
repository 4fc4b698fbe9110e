import Foundation

/// Stores a `URL` as its absolute string, so scheme, host, query and fragment all survive.
///
/// Foundation's own `set(_: URL, forKey:)` on Linux keeps only the path, so TypedDefaults never uses it.
/// Reading also accepts a plain absolute path (what that method left behind, read as a file URL) and a
/// JSON-quoted URL string (what sindresorhus/Defaults writes).
///
/// ## Usage
/// ```swift
/// let homepage = Key<URL?>("homepage")
/// Defaults[key: homepage] = URL(string: "https://example.com/a?b=1#c")
/// ```
public struct URLBridge: DefaultsBridge {
    /// Creates the bridge.
    @inlinable
    public init() {}

    /// Decoding parses, so reads keep the decoded value.
    @inlinable
    public var decodesAtACost: Bool { true }

    /// Returns `.string(value.absoluteString)`.
    public func serialize(_ value: URL) -> PropertyListValue? { .string(value.absoluteString) }

    /// Returns the URL a stored string spells, or `nil`.
    public func deserialize(_ stored: PropertyListValue) -> URL? {
        stored.stringValue.flatMap(PropertyListValue.url(fromText:))
    }
}

/// Stores a `UUID` as its string, such as `"E621E1F8-C36C-495A-93FC-0C247A3E6E5F"`.
///
/// Foundation's `set(_:forKey:)` stops the process with a `fatalError` when given a `UUID` directly.
///
/// ## Usage
/// ```swift
/// let installID = Key<UUID?>("installID")
/// Defaults[key: installID] = UUID()
/// ```
public struct UUIDBridge: DefaultsBridge {
    /// Creates the bridge.
    @inlinable
    public init() {}

    /// Decoding parses, so reads keep the decoded value.
    @inlinable
    public var decodesAtACost: Bool { true }

    /// Returns `.string(value.uuidString)`.
    public func serialize(_ value: UUID) -> PropertyListValue? { .string(value.uuidString) }

    /// Returns the UUID a stored string spells, or `nil`.
    public func deserialize(_ stored: PropertyListValue) -> UUID? {
        stored.stringValue.flatMap(PropertyListValue.uuid(fromText:))
    }
}

/// Stores a `Decimal` as its exact decimal string, such as `"1.1"`.
///
/// Foundation on Linux silently truncates a stored `Decimal` to an integer (1.1 becomes 1, and large values
/// wrap), so a decimal is never stored as a number. Reading also accepts integers and reals.
///
/// ## Usage
/// ```swift
/// let price = Key<Decimal>("price", default: 0)
/// Defaults[key: price] = Decimal(string: "19.99")!
/// ```
public struct DecimalBridge: DefaultsBridge {
    /// Creates the bridge.
    @inlinable
    public init() {}

    /// Decoding parses, so reads keep the decoded value.
    @inlinable
    public var decodesAtACost: Bool { true }

    /// Returns the decimal's string; throws for NaN, which has no decimal spelling.
    public func serialize(_ value: Decimal) throws -> PropertyListValue? {
        guard !value.isNaN else { throw DefaultsBridgeError("a NaN decimal has no stored form") }
        return .string(value.description)
    }

    /// Returns the decimal a stored value holds, or `nil`.
    public func deserialize(_ stored: PropertyListValue) -> Decimal? {
        switch stored {
        case .string(let text): return PropertyListValue.decimal(fromText: text)
        case .integer(let value): return Decimal(value)
        case .unsignedInteger(let value): return Decimal(value)
        case .double(let value) where value.isFinite: return Decimal(value)
        default: return nil
        }
    }
}

extension URL: DefaultsSerializable {
    /// Stores URLs as absolute strings.
    @inlinable
    public static var bridge: URLBridge { URLBridge() }
}

extension UUID: DefaultsSerializable {
    /// Stores UUIDs as strings.
    @inlinable
    public static var bridge: UUIDBridge { UUIDBridge() }
}

extension Decimal: DefaultsSerializable {
    /// Stores decimals as exact strings.
    @inlinable
    public static var bridge: DecimalBridge { DecimalBridge() }
}
