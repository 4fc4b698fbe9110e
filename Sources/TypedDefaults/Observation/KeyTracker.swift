import Observation

/// One key of one store, as Swift's Observation framework sees it: reading a `@Default` property registers
/// an access here, and every change of the key is announced here, so `withObservationTracking` (and
/// SwiftUI, which tracks the accesses a view's `body` makes) learns of the change, however it was made.
///
/// Shared by every `@Default` property of the key made from one adapter (``StoreConnection/tracker(forKey:)``)
/// and kept alive by them: while any lives, the tracker listens to the store, so a change by another
/// adapter or another process (once the store notices it) reaches trackers too.
///
/// A tracker is an observer like ``DefaultsAdapter/observe(_:options:queue:_:)-(Key<Value>,_,_,_)``: changes
/// made inside ``DefaultsAdapter/withoutPropagation(_:)`` are not announced. Every change, announced or not,
/// first drops the value the connection's cache keeps for the key: a `.cached` property read again after an
/// announcement (a view's `body`, say) must find the new value, and the adapter that wrote drops its kept
/// value only after the store has announced the change.
@usableFromInline
final class KeyTracker: Observable, Sendable {
    @usableFromInline let registrar = ObservationRegistrar()
    /// The key's name; also the one member readers access, so every change is a change of it.
    let name: String
    /// The key path of ``name``, made once: a key-path literal would be looked up (and retained) on every read.
    @usableFromInline let member: KeyPath<KeyTracker, String> & Sendable
    private let store: any DefaultsStore
    private let registration = Locked<UInt64?>(nil)
    /// Announces changes, one burst at a time, on Dispatch's global queue and outside every lock of the
    /// library: trackers' onChange closures are user code that `withMutation` calls synchronously, and must
    /// not hold up the library's own threads.
    private let announcements = Coalescer<KeyTracker>(on: .dispatch) { tracker in
        tracker.registrar.withMutation(of: tracker, keyPath: tracker.member) {}
    }

    init(name: String, store: any DefaultsStore, cache: DecodedValueCache) {
        self.name = name
        member = \KeyTracker.name
        self.store = store
        // Listeners run under the store's lock, so this one only drops the kept value (no user code, no
        // decoding) and queues the announcement. It runs on the writer's thread, inside the writer's
        // `withoutPropagation` if there is one.
        let id = store.changes.add(keys: [name], ignoringSuppression: true) { [weak self] _ in
            cache.forget(name)
            if !ThreadContext.isSilent { self?.changed() }
        }
        registration.withLock { $0 = id }
    }

    /// Tells the Observation framework that the key was read, so that a change of it ends the tracking.
    ///
    /// Outside any `withObservationTracking` this costs a call into the registrar and its thread-local lookup;
    /// the framework offers no cheaper way to learn that nobody tracks.
    @inlinable
    func access() {
        registrar.access(self, keyPath: member)
    }

    /// Announces a change of the key to whoever tracks it, soon and off the caller's thread: a burst of changes
    /// costs one announcement, and a change made during one (even by an onChange closure) is announced again.
    func changed() {
        announcements.request(for: self)
    }

    deinit {
        if let id = registration.withLock({ $0 }) { store.changes.remove(id) }
    }
}

extension StoreConnection {
    /// The tracker that tells the Observation framework of changes of `key`; shared while anyone holds it.
    func tracker(forKey key: String) -> KeyTracker {
        attachment(KeyTrackers.init).tracker(forKey: key, store: store, cache: decoded)
    }
}

/// The trackers of one connection's keys, held weakly: a tracker lives as long as the `@Default`
/// properties of its key do (and a queued announcement).
final class KeyTrackers: Sendable {
    private let trackers = Locked<[String: WeakTracker]>([:])

    /// The tracker of `name`, made (and listening to `store`) if there is none alive.
    func tracker(forKey name: String, store: any DefaultsStore, cache: DecodedValueCache) -> KeyTracker {
        if let existing = trackers.withLock({ $0[name]?.tracker }) { return existing }
        // Made outside the lock: registering with the store may start its file watch.
        let made = KeyTracker(name: name, store: store, cache: cache)
        return trackers.withLock { trackers in
            // Another thread may have made one meanwhile; the one made here then goes away unused.
            if let existing = trackers[name]?.tracker { return existing }
            trackers = trackers.filter { $0.value.tracker != nil }
            trackers[name] = WeakTracker(tracker: made)
            return made
        }
    }
}

/// A weak reference to a tracker, to sit in a lock-guarded table.
private struct WeakTracker: Sendable {
    weak var tracker: KeyTracker?
}
