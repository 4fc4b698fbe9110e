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
