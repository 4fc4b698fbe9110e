/// An adapter's store, with what the adapter keeps beside it: decoded values, scheduled flushes, and what the
/// layers above keep per connection (the Observation framework's trackers).
///
/// Shared by every copy of an adapter and every `@Default` property made from it, so they share one cache
/// and one tracker per key, and coalesce their writes into one flush.
@usableFromInline
final class StoreConnection: Sendable {
    @usableFromInline let store: any DefaultsStore
    @usableFromInline let decoded = DecodedValueCache()
    private let attachments = Locked<[ObjectIdentifier: any AnyObject & Sendable]>([:])
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

    /// Whether the store holds writes until it is flushed, so that the adapter arranges the flushes; a suite's
    /// store on Linux writes each to its journal and rebuilds its file by itself.
    let holdsWrites: Bool

    init(_ store: any DefaultsStore) {
        self.store = store
        holdsWrites = !PlatformStore.writesDurably(store)
        OpenStores.remember(store)
    }

    /// What a layer above keeps for this connection, one of each type, made by `make` on first use (under the
    /// connection's lock, so `make` only allocates).
    func attachment<Attachment: AnyObject & Sendable>(_ make: () -> Attachment) -> Attachment {
        attachments.withLock { attachments in
            let key = ObjectIdentifier(Attachment.self)
            if let existing = attachments[key] { return unsafeDowncast(existing, to: Attachment.self) }
            let made = make()
            attachments[key] = made
            return made
        }
    }

    /// Arranges for a flush of the store within `delay`, unless one is already arranged; a flush that fails is
    /// reported and tried again later, waiting twice as long each time (up to 30 s).
    ///
    /// The scheduled flush holds the connection, and so the store, until it has run.
    func scheduleFlush(within delay: Duration) {
        flushes.request(for: self, within: delay)
    }
}
