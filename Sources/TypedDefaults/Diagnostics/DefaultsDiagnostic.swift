/// Something TypedDefaults noticed and worked around without failing the call, such as a stored value of the
/// wrong type that was read as the key's default.
///
/// Diagnostics go to the handler set with ``DefaultsDiagnostics/setHandler(_:)``; by default they are written
/// to standard error (never standard output).
///
/// ## Usage
/// ```swift
/// DefaultsDiagnostics.setHandler { diagnostic in
///     logger.warning("\(diagnostic)")   // forward to swift-log, say
/// }
/// ```
public struct DefaultsDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// What kind of thing happened.
    public enum Kind: String, Sendable, Hashable {
        /// The stored value is not a value of the key's type; the read returned the default and the stored
        /// value was left as it is.
        case storedValueMismatch
        /// A launch argument for the key does not parse as the key's type; it was ignored.
        case invalidLaunchArgument
        /// A write was stored, but a launch argument keeps overriding the key's reads for this run.
        case writeOverriddenByLaunchArgument
        /// A write through a subscript setter (which cannot throw) was refused, or a write did not reach the
        /// disk (it is retried).
        case writeFailed
        /// The suite's file did not parse; it was preserved beside itself and reads fell back to the last
        /// good copy or to defaults.
        case damagedFile
        /// The suite's file could not be read (permissions, or not a regular file); reads use defaults.
        case unreadableFile
        /// Another program rewrote the suite's file in place without taking TypedDefaults' lock (as
        /// Foundation's `UserDefaults.synchronize()` does) and put back old values of keys this process had
        /// written. It cannot be prevented, only detected; `key` is set when one key was reverted.
        case revertedByUnlockedWriter
        /// Other processes' writes cannot be watched with inotify (a system limit is reached); observers still
        /// hear of them, by polling, a little later. Reported once per process.
        case fileWatchUnavailable
        /// Other processes' changes of the key cannot be observed on Apple platforms: key-value observing reads
        /// a `.` in a key as a path and `@` as an operator. Changes made in this process are still announced.
        /// Reported once per process and key.
        case observationLimited
        /// The service a store keeps its values in cannot be reached: reads use the last values this machine
        /// saw, and writes wait for it (a store outside the library, such as a database's, reports this).
        case storeUnavailable
        /// The values a store keeps were replaced behind its back (a database restored from a backup, its
        /// tables dropped and made again, a version set back): reads now follow the new values, and observers
        /// heard each change.
        case storeReplaced
    }

    /// What kind of thing happened.
    public let kind: Kind
    /// The suite it happened in: its name, `"standard"`, `"UserDefaults instance"` (an adapter over a
    /// `UserDefaults` object other than `.standard`), or `"in-memory"`.
    public let suite: String
    /// The key it is about, if it is about one.
    public let key: String?
    /// A sentence for the user: which key, what was found, what was expected, what was done.
    public let message: String

    /// Creates a diagnostic.
    public init(kind: Kind, suite: String, key: String?, message: String) {
        self.kind = kind
        self.suite = suite
        self.key = key
        self.message = message
    }

    /// `TypedDefaults[suite]: message`.
    public var description: String { "TypedDefaults[\(suite)]: \(message)" }
}
