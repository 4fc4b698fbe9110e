/// An adapter's store, with what the adapter keeps beside it: decoded values, the keys' trackers for the
/// Observation framework, and scheduled flushes.
///
/// Shared by every copy of an adapter and every `@Default` property made from it, so they share one cache
/// and one tracker per key, and coalesce their writes into one flush.
@usableFromInline
final class StoreConnection: Sendable {
    @usableFromInline let store: any DefaultsStore
    @usableFromInline let decoded = DecodedValueCache()
    private let trackers = KeyTrackers()
    private let flushes = Locked(FlushState())

    private struct FlushState: Sendable {
        /// A flush is arranged and has not started.
        var scheduled = false
        /// A flush is running: a flush asked for meanwhile runs after it (within the delay asked for), not
        /// beside it, so that a slow store never has more than one thread flushing it.
        var running = false
        var requested: Duration?
        var retryDelay: Duration = .milliseconds(250)
    }

    init(_ store: any DefaultsStore) {
        self.store = store
        OpenStores.remember(store)
    }

    /// The tracker that tells the Observation framework of changes of `key`; shared while anyone holds it.
    func tracker(forKey key: String) -> KeyTracker {
        trackers.tracker(forKey: key, store: store, cache: decoded)
    }

    /// Arranges for a flush of the store within `delay`, unless one is already arranged; a flush that fails is
    /// reported and tried again later, waiting twice as long each time (up to 30 s).
    ///
    /// The scheduled flush holds the connection, and so the store, until it has run.
    func scheduleFlush(within delay: Duration) {
        let schedule = flushes.withLock { state in
            if state.running {
                state.requested = min(state.requested ?? delay, delay)
                return false
            }
            defer { state.scheduled = true }
            return !state.scheduled
        }
        guard schedule else { return }
        BackgroundWork.run(after: delay) { [self] in
            flushes.withLock { state in
                state.scheduled = false
                state.running = true
            }
            let failure: DefaultsError?
            do throws(DefaultsError) {
                try store.flush()
                failure = nil
            } catch {
                failure = error
            }
            let (next, retry) = flushes.withLock { state -> (Duration?, Duration) in
                state.running = false
                defer { state.requested = nil }
                guard failure != nil else {
                    state.retryDelay = .milliseconds(250)
                    return (state.requested, state.retryDelay)
                }
                defer { state.retryDelay = min(state.retryDelay * 2, .seconds(30)) }
                return (state.retryDelay, state.retryDelay)
            }
            if let failure {
                DefaultsDiagnostics.report(
                    DefaultsDiagnostic(
                        kind: .writeFailed,
                        suite: store.name,
                        key: nil,
                        message: "\(failure.description); trying again in \(retry)"
                    ),
                    oncePerProcess: false
                )
            }
            if let next { scheduleFlush(within: next) }
        }
    }
}
