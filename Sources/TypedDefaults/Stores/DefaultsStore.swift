import Foundation

/// Where an adapter's values live: the one seam between typed keys and storage.
///
/// A store holds ``PropertyListValue``s by key name. Everything typed (bridges, defaults, launch arguments,
/// decoded-value caching, write policies, observation) happens above it, in the adapter, so a store only
/// keeps values, applies batches of writes atomically, makes them durable on ``flush()``, and announces
/// what changed through ``changes``.
///
/// TypedDefaults comes with three stores: ``FileStore`` (a suite's property-list file, shared safely with
/// other processes), ``UserDefaultsStore`` (any `UserDefaults` instance, through Foundation) and
/// ``InMemoryStore`` (memory only, for tests). Write your own to keep settings elsewhere, and check it with
/// the `TypedDefaultsTesting` kit, which every built-in store passes.
///
/// What the adapter relies on:
/// - ``value(forKey:)`` and ``snapshot()`` return what the latest ``apply(_:)`` left, in this process at
///   least; ``snapshot()`` is one consistent state, never half of a batch.
/// - ``apply(_:)`` applies all of a batch or none of it, and checks the batch's
///   ``DefaultsBatch/expected`` values in the same atomic step; `modify` is built on that.
/// - Values reach the adapter unchanged: a store keeps what it was given, bit for bit (strings, data,
///   `Double`s, dates).
/// - No user code runs while the store holds a lock of its own: a store calls nothing it was given.
///
/// ## Usage
/// ```swift
/// final class DictionaryStore: DefaultsStore {
///     private let values = Mutex<[String: PropertyListValue]>([:])
///     let name = "dictionary"
///     let changes = DefaultsStoreChanges()
///
///     func value(forKey key: String) -> PropertyListValue? { values.withLock { $0[key] } }
///     func snapshot() -> [String: PropertyListValue] { values.withLock { $0 } }
///
///     func apply(_ batch: DefaultsBatch) -> Bool {
///         values.withLock { values in
///             guard let changed = batch.apply(to: &values) else { return false }
///             changes.publish(changed)   // under the lock, so in order
///             return true
///         }
///     }
///
///     func flush() {}
/// }
///
/// let defaults = DefaultsAdapter(store: DictionaryStore(), keyStore: DefaultsKeys())
/// ```
public protocol DefaultsStore: AnyObject, Sendable {
    /// The store's name in diagnostics and errors, such as a suite's name.
    var name: String { get }

    /// Where the store announces every change of its values, made through it or (for a shared store) by
    /// another process.
    ///
    /// Announce each change once, in the order the changes happened. Observers in this process learn of
    /// changes only through this.
    var changes: DefaultsStoreChanges { get }

    /// The value stored for `key`, or `nil` if there is none.
    ///
    /// Called on every read, from any thread: keep it to a lookup.
    func value(forKey key: String) -> PropertyListValue?

    /// Every value the store holds, keyed by name, as one consistent state.
    func snapshot() -> [String: PropertyListValue]

    /// Applies `batch` as one atomic step, or nothing of it.
    ///
    /// Returns `false`, changing nothing, when the values the batch ``DefaultsBatch/expected`` are no longer
    /// stored; otherwise applies it and returns `true`. Throws when it cannot be applied at all (the store is
    /// unavailable, or a batch with expectations cannot be made durable); nothing is applied then.
    ///
    /// Batches take effect in the order `apply` is called, here and in every process sharing the store: of two
    /// batches that both returned, the later one's values stay. A batch without expectations may stay in memory
    /// until ``flush()`` (the adapter then flushes within its write policy's delay, at a normal exit and in
    /// ``DefaultsShutdown/flushAll()-2ivyt``; a process killed meanwhile loses it), or be durable when `apply`
    /// returns, as a suite's is. A batch with expectations is the store's atomic read-modify-write: a store
    /// shared with other processes checks and applies it under a lock those processes take too.
    func apply(_ batch: DefaultsBatch) throws(DefaultsError) -> Bool

    /// Makes every batch applied before the call durable, as far as the store is durable, before returning.
    ///
    /// Throws when that fails; the batches stay applied in memory and a later flush tries again.
    func flush() throws(DefaultsError)

    /// The file the store keeps its values in, if it is one file; `nil` by default.
    var fileURL: URL? { get }

    /// Throws if what the store keeps its values in is damaged, unreadable or unsafe; does nothing by default.
    ///
    /// A damaged file throws ``DefaultsError/damagedFile(path:preservedAt:reason:)`` even though reads fall
    /// back to the last good copy, so that a program can tell its user.
    func checkHealth() throws(DefaultsError)

    /// Removes the suite: every value, and the file the store keeps them in (``fileURL``) with whatever it keeps
    /// beside it, so that nothing of the suite is left; by default, empties the store durably.
    ///
    /// Observers hear of each value removed. ``DefaultsAdapter/removeSuite()`` calls this.
    ///
    /// ```swift
    /// try FileStore.suite("com.example.app").removeSuite()
    /// ```
    func removeSuite() throws(DefaultsError)
}

extension DefaultsStore {
    /// No file: the store says nothing about where it keeps values.
    public var fileURL: URL? { nil }

    /// Nothing to check: the store reports no damage.
    public func checkHealth() throws(DefaultsError) {}

    /// No file: the store is emptied, in one atomic step that is durable when it returns.
    public func removeSuite() throws(DefaultsError) {
        try modifyAll { $0.removeAll() }
    }
}

// MARK: - Read-modify-write

extension DefaultsStore {
    /// Replaces the value for `key` with what `transform` makes of the current one, atomically with respect to
    /// every other writer of the store (see ``ReadModifyWrite``).
    func modify(
        _ key: String,
        _ transform: (PropertyListValue?) throws(DefaultsError) -> PropertyListValue?
    ) throws(DefaultsError) {
        try ReadModifyWrite.run(
            store: self,
            key: key,
            from: value(forKey: key),
            transform,
            same: { $0.isIdentical(to: $1) },
            commit: { expected, new throws(DefaultsError) in
                try apply(DefaultsBatch(writes: [key: new], expected: .values([key: expected])))
            },
            current: { value(forKey: key) }
        )
    }

    /// Replaces all the store's values with what `transform` makes of them, as one atomic step.
    func modifyAll(
        _ transform: (inout [String: PropertyListValue]) throws(DefaultsError) -> Void
    ) throws(DefaultsError) {
        try ReadModifyWrite.run(
            store: self,
            key: nil,
            from: snapshot(),
            { values throws(DefaultsError) in
                var values = values
                try transform(&values)
                return values
            },
            same: { $0.isIdentical(to: $1) },
            commit: { expected, new throws(DefaultsError) in
                try apply(DefaultsBatch(replacingAllWith: new, expected: .snapshot(expected)))
            },
            current: { snapshot() }
        )
    }
}
