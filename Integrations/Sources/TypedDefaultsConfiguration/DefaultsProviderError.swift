import Configuration

/// Why ``DefaultsProvider`` could not give a value: the suite holds one that is not of the type asked for.
///
/// The provider throws it from its lookups, and swift-configuration's reader treats it as it treats its own
/// providers' conversion errors: `int(forKey:)` returns `nil` and `int(forKey:default:)` the default, each
/// reporting the error to the reader's access reporter; `requiredInt(forKey:)` and every `fetch` method throw
/// it; a watch delivers the default (or `nil`) for that update, and a watch of a required value ends with the
/// error. The message names the key and the stored type but never the stored value, which may be a secret.
///
/// ## Usage
/// ```swift
/// let adapter = DefaultsAdapter(store: InMemoryStore(), keyStore: DefaultsKeys())
/// adapter[key: Key<String>("http.timeout", default: "")] = "soon"
/// let reader = ConfigReader(provider: DefaultsProvider(adapter))
/// do {
///     _ = try reader.requiredInt(forKey: "http.timeout")
/// } catch let error as DefaultsProviderError {
///     print(error)   // "http.timeout" holds a string, which is not an int
/// }
/// ```
public enum DefaultsProviderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The value stored under `key` (a defaults key) is a `stored` (such as "string" or "array") that does
    /// not read as `type`.
    case valueNotConvertible(key: String, type: ConfigType, stored: String)

    /// A one-line description that names the key and types, never the value.
    public var description: String {
        switch self {
        case .valueNotConvertible(let key, let type, let stored):
            "\(String(reflecting: key)) holds \(stored), which is not \(type.article) \(type.rawValue)"
        }
    }
}

extension ConfigType {
    /// The indefinite article for the type's name, so that messages read as English.
    fileprivate var article: String {
        switch self {
        case .int, .intArray: "an"
        default: "a"
        }
    }
}
