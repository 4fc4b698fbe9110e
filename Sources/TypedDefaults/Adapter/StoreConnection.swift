import Dispatch

/// An adapter's store, with what the adapter keeps beside it: decoded values and scheduled flushes.
///
/// Shared by every copy of an adapter and every `@Default` property made from it, so they share one cache
/// and coalesce their writes into one flush.
@usableFromInline
final class StoreConnection: Sendable {
    @usableFromInline let store: any DefaultsStore
    @usableFromInline let decoded = DecodedValueCache()
    private let flushes = Locked(FlushState())

    private struct FlushState: Sendable {
        var scheduled = false
        var retryDelay: Duration = .milliseconds(250)
    }

    init(_ store: any DefaultsStore) {
        self.store = store
    }

    /// Arranges for a flush of the store within `delay`, unless one is already arranged; a flush that fails is
    /// reported and tried again later, waiting twice as long each time (up to 30 s).
    ///
    /// The scheduled flush holds the connection, and so the store, until it has run.
    func scheduleFlush(within delay: Duration) {
        let schedule = flushes.withLock { state in
            defer { state.scheduled = true }
            return !state.scheduled
        }
        guard schedule else { return }
        DispatchQueue.global()
            .asyncAfter(deadline: .now() + delay.timeInterval) { [self] in
                flushes.withLock { $0.scheduled = false }
                do throws(DefaultsError) {
                    try store.flush()
                    flushes.withLock { $0.retryDelay = .milliseconds(250) }
                } catch {
                    let retry = flushes.withLock { state in
                        defer { state.retryDelay = min(state.retryDelay * 2, .seconds(30)) }
                        return state.retryDelay
                    }
                    DefaultsDiagnostics.report(
                        DefaultsDiagnostic(
                            kind: .writeFailed,
                            suite: store.name,
                            key: nil,
                            message: "\(error.description); trying again in \(retry)"
                        ),
                        oncePerProcess: false
                    )
                    scheduleFlush(within: retry)
                }
            }
    }
}

extension Duration {
    /// Seconds, for Dispatch.
    fileprivate var timeInterval: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
