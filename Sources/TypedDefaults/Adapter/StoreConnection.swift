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
    /// Flushes the store, coalescing the writes that ask for one; a flush that fails is reported and tried
    /// again later, waiting twice as long each time (up to 30 s).
    private let flushes = Coalescer<StoreConnection>(
        retrying: Backoff(first: .milliseconds(250), limit: .seconds(30)),
        reporting: { connection, failure, retry in
            DefaultsDiagnostics.report(
                DefaultsDiagnostic(
                    kind: .writeFailed,
                    suite: connection.store.name,
                    key: nil,
                    message: "\(failure); trying again in \(retry)"
                ),
                oncePerProcess: false
            )
        },
        { connection in try connection.store.flush() }
    )

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
        flushes.request(for: self, within: delay)
    }
}
