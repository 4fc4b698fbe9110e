/// One stored value's change, as a store announces it.
///
/// ## Usage
/// ```swift
/// let change = DefaultsStoreChange(key: "theme", oldValue: .string("light"), newValue: .string("dark"))
/// ```
public struct DefaultsStoreChange: Sendable, Hashable {
    /// The name of the key that changed.
    public let key: String
    /// The value before the change; `nil` when there was none.
    public let oldValue: PropertyListValue?
    /// The value after the change; `nil` when the key was removed.
    public let newValue: PropertyListValue?

    /// Describes a change of `key` from `oldValue` to `newValue`.
    public init(key: String, oldValue: PropertyListValue?, newValue: PropertyListValue?) {
        self.key = key
        self.oldValue = oldValue
        self.newValue = newValue
    }
}

extension DefaultsStoreChange {
    /// The change of `key` from `oldValue` to `newValue`, or `nil` when the two are the same bit for bit: the
    /// one rule of what counts as a change, for a single key and for `changes(to:amongKeys:)`.
    package init?(key: String, from oldValue: PropertyListValue?, to newValue: PropertyListValue?) {
        guard !oldValue.isIdentical(to: newValue) else { return nil }
        self.init(key: key, oldValue: oldValue, newValue: newValue)
    }
}

extension [String: PropertyListValue] {
    /// The one diff: every key whose value differs in `other` (added, removed or changed, bit for bit), with
    /// both values; with `keys`, only those are compared (each once, however often named).
    ///
    /// Stores announce with it, and the file store's write bookkeeping uses it.
    ///
    /// ```swift
    /// let changes = ["a": .integer(1)].changes(to: ["b": .integer(2)])   // a removed, b added
    /// ```
    package func changes(to other: Self, amongKeys keys: [String]? = nil) -> [DefaultsStoreChange] {
        var changes: [DefaultsStoreChange] = []
        guard let keys else {
            for (key, new) in other {
                if let change = DefaultsStoreChange(key: key, from: self[key], to: new) { changes.append(change) }
            }
            for (key, old) in self where other[key] == nil {
                changes.append(DefaultsStoreChange(key: key, oldValue: old, newValue: nil))
            }
            return changes
        }
        var seen = Set<String>(minimumCapacity: keys.count)
        for key in keys where seen.insert(key).inserted {
            if let change = DefaultsStoreChange(key: key, from: self[key], to: other[key]) { changes.append(change) }
        }
        return changes
    }

    /// The keys whose values differ between these values and `other`, including those only one of them holds.
    func keysDiffering(from other: Self) -> [String] {
        changes(to: other).map(\.key)
    }
}

/// Where a store announces its changes, and where observers in this process hear of them.
///
/// A store owns one and calls ``publish(_:)`` with every change it makes or learns of, in order; the best
/// place is while it still holds the lock that ordered the change. That is safe: no user code runs inside
/// `publish`, since observations only queue the change for their own queue, and cached `@Default`
/// properties only drop their cached value. Changes made inside
/// ``DefaultsAdapter/withoutPropagation(_:)`` on the publishing thread reach no observer; cached `@Default`
/// properties still drop their values, so they are never left stale.
///
/// ## Usage
/// ```swift
/// final class MyStore: DefaultsStore {
///     // Starts watching the backing service while anyone observes.
///     let changes = DefaultsStoreChanges { print("observers come or go") }
///     // ...
/// }
/// ```
public final class DefaultsStoreChanges: Sendable {
    typealias Listener = @Sendable ([DefaultsStoreChange]) -> Void

    private struct Entry: Sendable {
        /// Whether the listener hears changes made inside `withoutPropagation` too (a cache's, not an observer's).
        let ignoresSuppression: Bool
        let listener: Listener
    }

    /// The listeners, indexed by key, so a change costs in proportion to the listeners of its keys, not to all.
    private struct State: Sendable {
        /// The keys of each listener; `nil` for a listener of every key.
        var keysOf: [UInt64: Set<String>?] = [:]
        /// The listeners of every key.
        var everyKey: [UInt64: Entry] = [:]
        /// The listeners of each key observed one by one.
        var byKey: [String: [UInt64: Entry]] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())
    private let observersChanged: @Sendable () -> Void

    /// Creates the announcements of one store.
    ///
    /// `observersChanged` is called, outside the lock, whenever ``hasObservers`` or ``observedKeys`` may have
    /// changed (to start and stop watching for other processes' changes, say). Such calls can overtake each
    /// other, so it should look at those properties rather than count.
    public init(observersChanged: @escaping @Sendable () -> Void = {}) {
        self.observersChanged = observersChanged
    }

    /// Whether anyone listens; a store can skip working out changes when nobody does.
    public var hasObservers: Bool { state.withLock { !$0.keysOf.isEmpty } }

    /// The keys someone observes one by one; observers of every key are not counted here.
    ///
    /// A store that can only watch keys one at a time (key-value observing, say) watches these.
    public var observedKeys: Set<String> { state.withLock { Set($0.byKey.keys) } }

    /// How many observers are registered; for tests that check nothing is left behind.
    var observerCount: Int { state.withLock { $0.keysOf.count } }

    /// Tells every observer of the keys in `changes` about them.
    ///
    /// ```swift
    /// changes.publish([DefaultsStoreChange(key: "theme", oldValue: nil, newValue: .string("dark"))])
    /// ```
    public func publish(_ changes: [DefaultsStoreChange]) {
        guard !changes.isEmpty else { return }
        var suppressed: Bool?
        // Read only when a listener could be left out: the thread-local lookup costs more than the rest.
        func heard(_ entry: Entry) -> Bool {
            if entry.ignoresSuppression { return true }
            if suppressed == nil { suppressed = ThreadContext.isSilent }
            return suppressed == false
        }
        // Each listener is called once, with the changes of its keys in the order given.
        let deliveries: [(Listener, [DefaultsStoreChange])] = state.withLock { state in
            var deliveries: [(Listener, [DefaultsStoreChange])] = []
            for entry in state.everyKey.values where heard(entry) { deliveries.append((entry.listener, changes)) }
            guard !state.byKey.isEmpty else { return deliveries }
            if changes.count == 1 {
                for entry in state.byKey[changes[0].key]?.values ?? [:].values where heard(entry) {
                    deliveries.append((entry.listener, changes))
                }
                return deliveries
            }
            var perListener: [UInt64: (Entry, [DefaultsStoreChange])] = [:]
            for change in changes {
                for (id, entry) in state.byKey[change.key] ?? [:] {
                    perListener[id, default: (entry, [])].1.append(change)
                }
            }
            for (entry, relevant) in perListener.values where heard(entry) {
                deliveries.append((entry.listener, relevant))
            }
            return deliveries
        }
        for (listener, relevant) in deliveries { listener(relevant) }
    }

    /// Registers `listener` for changes of `keys` (of every key for `nil`); returns its registration.
    ///
    /// With `ignoringSuppression`, the listener hears changes made inside `withoutPropagation` too: a cache
    /// that must drop what changed, whoever may be told.
    func add(keys: Set<String>?, ignoringSuppression: Bool = false, _ listener: @escaping Listener) -> UInt64 {
        let entry = Entry(ignoresSuppression: ignoringSuppression, listener: listener)
        let (id, watchChanges) = state.withLock { state in
            state.nextID += 1
            let id = state.nextID
            let first = state.keysOf.isEmpty
            state.keysOf[id] = keys
            guard let keys else {
                state.everyKey[id] = entry
                return (id, first)
            }
            var newKey = false
            for key in keys {
                if state.byKey[key] == nil { newKey = true }
                state.byKey[key, default: [:]][id] = entry
            }
            return (id, first || newKey)
        }
        if watchChanges { observersChanged() }
        return id
    }

    func remove(_ id: UInt64) {
        let watchChanges = state.withLock { state in
            guard let keys = state.keysOf.removeValue(forKey: id) else { return false }
            guard let keys else {
                state.everyKey[id] = nil
                return state.keysOf.isEmpty
            }
            var keyGone = false
            for key in keys {
                state.byKey[key]?[id] = nil
                if state.byKey[key]?.isEmpty == true {
                    state.byKey[key] = nil
                    keyGone = true
                }
            }
            return keyGone || state.keysOf.isEmpty
        }
        if watchChanges { observersChanged() }
    }
}
