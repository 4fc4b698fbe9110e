import Foundation

/// Stores a `URL` as its absolute string, so scheme, host, query and fragment all survive.
///
/// The same string on every platform: Foundation's own `set(_: URL, forKey:)` keeps only the path on Linux, and
/// writes a keyed archive on Apple platforms, so TypedDefaults never uses it. Reading also accepts what others
/// leave behind: a plain absolute path (Foundation on Linux) or a `~/…` path, both read as file URLs; a
/// JSON-quoted URL string (sindresorhus/Defaults); and a keyed archive of `NSURL` (Foundation on Apple
/// platforms, and SwiftyUserDefaults there), which is read without unarchiving any object on Linux.
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

    /// Returns the URL a stored string spells or a keyed archive holds, or `nil`; throws for data that is not
    /// a keyed archive of a URL, saying why.
    public func deserialize(_ stored: PropertyListValue) throws -> URL? {
        switch stored {
        case .string(let text):
            URLArchive.homeURL(abbreviated: text, percentEncoded: false) ?? PropertyListValue.url(fromText: text)
        case .data(let archive):
            try URLArchive.url(from: archive)
        default:
            nil
        }
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
