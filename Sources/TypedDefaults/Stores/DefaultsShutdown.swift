import Dispatch

/// The call a program makes at its graceful shutdown, so that every store is current on disk before it ends.
///
/// A suite needs none: on Linux each write is in the suite's journal when the setter returns, and survives the
/// program however it ends; ``flushAll()-2ivyt`` also rebuilds each suite's file from its journal, synced to the
/// disk. On Apple platforms the system keeps every value set, and ``flushAll()-2ivyt`` waits until it has them.
/// A store of the program's own (one on a database server, say) holds writes until its adapter flushes them:
/// within the write policy's delay, at a normal exit, and here. TypedDefaults catches no signal, so a program
/// that must keep such writes through SIGTERM handles the signal itself (a `DispatchSource`,
/// swift-service-lifecycle) and calls ``flushAll()-2ivyt`` there.
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
