/// One stored value's change, as the storage sees it.
struct StoredChange: Sendable, Equatable {
    let key: String
    let oldValue: PropertyListValue?
    let newValue: PropertyListValue?
}

/// The one place where a suite's changes fan out to its observers.
///
/// The storage publishes while it holds its own lock, so every observer sees a suite's changes in the order
/// they happened. Listeners therefore never run user code here: an observation only queues the change for
/// its own queue, and a cached property wrapper only updates its cache.
final class ChangeHub: Sendable {
    typealias Listener = @Sendable ([StoredChange]) -> Void

    private struct Entry: Sendable {
        let keys: Set<String>?
        let listener: Listener
    }

    private struct State: Sendable {
        var entries: [UInt64: Entry] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())
    /// Called when the first observer arrives and when the last one leaves (to start and stop watching the
    /// file), outside the hub's lock; such calls can overtake each other, so it looks at ``hasObservers``
    /// rather than being told.
    private let activity: @Sendable () -> Void

    init(activity: @escaping @Sendable () -> Void = {}) {
        self.activity = activity
    }

    /// How many observers are registered; for tests that check nothing is left behind.
    var observerCount: Int { state.withLock { $0.entries.count } }

    var hasObservers: Bool { state.withLock { !$0.entries.isEmpty } }

    /// Registers `listener` for changes of `keys` (of every key for `nil`); returns its registration.
    func add(keys: Set<String>?, _ listener: @escaping Listener) -> UInt64 {
        let (id, first) = state.withLock { state in
            state.nextID += 1
            state.entries[state.nextID] = Entry(keys: keys, listener: listener)
            return (state.nextID, state.entries.count == 1)
        }
        if first { activity() }
        return id
    }

    func remove(_ id: UInt64) {
        let last = state.withLock { state in state.entries.removeValue(forKey: id) != nil && state.entries.isEmpty }
        if last { activity() }
    }

    /// Hands each listener the changes it asked for.
    func publish(_ changes: [StoredChange]) {
        guard !changes.isEmpty else { return }
        let entries = state.withLock { Array($0.entries.values) }
        for entry in entries {
            let relevant = entry.keys.map { keys in changes.filter { keys.contains($0.key) } } ?? changes
            if !relevant.isEmpty { entry.listener(relevant) }
        }
    }
}

/// Whether changes made on this task are announced; ``DefaultsAdapter/withoutPropagation(_:)`` turns it off.
enum Propagation {
    @TaskLocal static var isSuppressed = false
}
