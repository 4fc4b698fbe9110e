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

    /// A write did not reach the disk; `reason` says what failed. The value is kept and written again later.
    case writeFailed(suite: String, key: String?, reason: String)

    /// Neither `XDG_CONFIG_HOME` nor `HOME` names a directory for suites (Foundation would use `/.config`).
    case noConfigDirectory(reason: String)

    /// The suite's path holds something TypedDefaults will not read or write: a directory, a FIFO, a device,
    /// or (for writing) a symbolic link.
    case unsafeFile(path: String, reason: String)

    /// The suite's file exists but cannot be read; `reason` is the system's.
    case unreadableFile(path: String, reason: String)

    /// The suite's file does not parse. Its bytes were preserved at `preservedAt` before anything replaced
    /// them; reads use the last good copy if there is one, else the keys' defaults.
    case damagedFile(path: String, preservedAt: String, reason: String)

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
        case .noConfigDirectory(let reason):
            "no directory for suites: \(reason)"
        case .unsafeFile(let path, let reason):
            "refusing to use \(path): \(reason)"
        case .unreadableFile(let path, let reason):
            "cannot read \(path): \(reason)"
        case .damagedFile(let path, let preservedAt, let reason):
            "\(path) is damaged (\(reason)); its bytes are preserved at \(preservedAt)"
        }
    }
}
