#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

/// Where TypedDefaults sends its diagnostics.
///
/// Diagnostics about reading (a stored value of the wrong type, an unparsable launch argument) and the notice
/// that a launch argument overrides a written key are delivered once per process for the same suite, key and
/// message, so a key used in a loop does not flood the log. Failed writes are reported every time.
///
/// ## Usage
/// ```swift
/// DefaultsDiagnostics.setHandler { diagnostic in
///     logger.warning("\(diagnostic)")
/// }
/// DefaultsDiagnostics.resetHandler()   // back to standard error
/// ```
public enum DefaultsDiagnostics {
    private struct State: Sendable {
        var handler: (@Sendable (DefaultsDiagnostic) -> Void)?
        var delivered: Set<DefaultsDiagnostic> = []
    }

    private static let state = Locked(State())

    /// Sends every later diagnostic to `handler` instead of standard error.
    ///
    /// The handler may be called from any thread, and may read and write defaults.
    public static func setHandler(_ handler: @escaping @Sendable (DefaultsDiagnostic) -> Void) {
        state.withLock { $0.handler = handler }
    }

    /// Sends later diagnostics to standard error again.
    public static func resetHandler() {
        state.withLock { $0.handler = nil }
    }

    /// Delivers `diagnostic` to the handler (standard error by default), every time: for stores written
    /// outside the library, which report what they work around the way the built-in stores do.
    ///
    /// ```swift
    /// DefaultsDiagnostics.report(
    ///     DefaultsDiagnostic(kind: .storeUnavailable, suite: "fleet", key: nil, message: "server unreachable")
    /// )
    /// ```
    public static func report(_ diagnostic: DefaultsDiagnostic) {
        report(diagnostic, oncePerProcess: false)
    }

    /// Runs `body`, which may hold locks, and delivers the diagnostics it reported after it returns: a
    /// handler is user code, which may use the very suite whose lock is held.
    static func holding<Result, Failure>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        try ThreadContext.holdingLocks(body)
    }

    static func report(_ diagnostic: DefaultsDiagnostic, oncePerProcess: Bool) {
        ThreadContext.whenUnlocked { deliver(diagnostic, oncePerProcess: oncePerProcess) }
    }

    private static func deliver(_ diagnostic: DefaultsDiagnostic, oncePerProcess: Bool) {
        let handler: (@Sendable (DefaultsDiagnostic) -> Void)? = state.withLock { state in
            if oncePerProcess, !state.delivered.insert(diagnostic).inserted { return { _ in } }
            return state.handler
        }
        // Called outside the lock: a handler may itself read or write defaults.
        if let handler {
            handler(diagnostic)
        } else {
            writeToStandardError(diagnostic.description + "\n")
        }
    }

    private static func writeToStandardError(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            _ = write(2, bytes.baseAddress, bytes.count)
        }
    }
}
