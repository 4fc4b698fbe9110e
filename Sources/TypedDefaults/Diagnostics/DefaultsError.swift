/// The errors TypedDefaults throws; each one says what happened and what was kept.
///
/// ## Usage
/// ```swift
/// do {
///     try Defaults.set(profile, for: \.profile)
/// } catch let error as DefaultsError {
///     print(error)   // the Profile value for "profile" cannot be stored: ...; the stored value is unchanged
/// }
/// ```
public enum DefaultsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `DefaultsAdapter(suiteName:keyStore:)` refused a suite name; `reason` says why.
    case invalidSuiteName(String, reason: String)

    /// `DefaultsAdapter(suiteName:directory:keyStore:)` refused a directory; `reason` says why.
    case invalidDirectory(String, reason: String)

    /// A value has no stored form (it is not property-list representable); nothing was written.
    case valueNotStorable(key: String, type: String, reason: String)

    /// A write did not reach the disk; `reason` says what failed.
    case writeFailed(suite: String, key: String?, reason: String)

    /// A sentence for the user.
    public var description: String {
        switch self {
        case .invalidSuiteName(let name, let reason):
            "invalid suite name \(String(reflecting: name)): \(reason)"
        case .invalidDirectory(let path, let reason):
            "invalid directory for suites \(String(reflecting: path)): \(reason)"
        case .valueNotStorable(let key, let type, let reason):
            "the \(type) value for \(String(reflecting: key)) cannot be stored: \(reason); the stored value is unchanged"
        case .writeFailed(let suite, let key?, let reason):
            "writing \(String(reflecting: key)) to suite \(String(reflecting: suite)) failed: \(reason)"
        case .writeFailed(let suite, nil, let reason):
            "writing suite \(String(reflecting: suite)) failed: \(reason)"
        }
    }
}
