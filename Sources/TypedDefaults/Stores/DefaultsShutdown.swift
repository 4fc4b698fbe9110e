import Dispatch

/// The one call a program that handles SIGTERM, SIGINT or SIGHUP itself makes before it ends.
///
/// On Linux, TypedDefaults flushes every suite, and every other store an adapter uses, by itself at a normal exit,
/// and before SIGTERM, SIGINT or SIGHUP end the program, if the program left those signals alone. A program that handles them (its own handler,
/// `SIG_IGN` with a `DispatchSource`, swift-service-lifecycle) keeps its handling, and calls
/// ``flushAll()-2ivyt`` once its last writes are made: then they are on disk however the program ends, even by
/// `_exit`, by raising the signal again, or by a `SIGKILL` after its grace period. On Apple platforms the system
/// keeps every value set, and ``flushAll()-2ivyt`` waits until it has them; other stores are flushed at a
/// normal exit and by ``flushAll()-2ivyt``.
///
/// ## Usage
/// ```swift
/// signal(SIGTERM, SIG_IGN)
/// let termination = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .main)
/// termination.setEventHandler {
///     do {
///         try DefaultsShutdown.flushAll()
///     } catch {
///         print("settings not saved: \(error)")
///     }
///     exit(0)
/// }
/// termination.resume()
/// ```
public enum DefaultsShutdown {
    /// Makes every pending write of every suite open in the process durable, and waits for the suites' backup
    /// copies; then flushes every other store an adapter uses (a store of your own, such as one on a database
    /// server).
    ///
    /// Every store is flushed even when one fails. Throws the first failure (a
    /// ``DefaultsError/writeFailed(suite:key:reason:)``, or another file error); the others are reported as
    /// diagnostics. The writes that failed are kept, and tried again at exit.
    ///
    /// ```swift
    /// try DefaultsShutdown.flushAll()
    /// ```
    public static func flushAll() throws(DefaultsError) {
        if let error = PlatformStore.flushAll() { throw error }
    }

    /// Makes every pending write of every suite durable, like ``flushAll()-2ivyt``, without blocking a thread of
    /// Swift's cooperative pool meanwhile (the flush can wait up to 5 s for another process's lock).
    ///
    /// ```swift
    /// try await DefaultsShutdown.flushAll()   // in a swift-service-lifecycle service's shutdown
    /// ```
    public static func flushAll() async throws(DefaultsError) {
        let result = await withCheckedContinuation { continuation in
            DispatchQueue.global()
                .async {
                    continuation.resume(returning: Result { () throws(DefaultsError) in try flushAll() })
                }
        }
        try result.get()
    }
}
