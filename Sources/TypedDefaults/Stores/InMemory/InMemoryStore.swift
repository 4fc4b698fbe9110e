/// A store that keeps values in memory only: for testing code that takes a ``DefaultsAdapter`` without files.
///
/// It stores exactly what a suite on disk would store (the same bridges produce the same
/// ``PropertyListValue``s and the same checks refuse the same values), so what passes against it behaves
/// the same on a real suite. Launch arguments are ignored unless you pass some. To test how code copes with
/// failing writes, slow flushes or changes from another process, use `FaultyStore` from the
/// `TypedDefaultsTesting` library.
///
/// ## Usage
/// ```swift
/// func greet(_ defaults: DefaultsAdapter<DefaultsKeys>) -> String { "Hi \(defaults.username ?? "there")" }
///
/// let store = InMemoryStore()
/// let defaults = DefaultsAdapter(store: store, keyStore: DefaultsKeys())
/// defaults.username = "Ann"
/// #expect(greet(defaults) == "Hi Ann")
/// #expect(store.storedValues["username"] == .string("Ann"))
/// ```
public final class InMemoryStore: DefaultsStore {
    private let values: Locked<[String: PropertyListValue]>
    /// Announces every batch applied to the store.
    public let changes = DefaultsStoreChanges()
    /// The name diagnostics use, `"in-memory"` unless given.
    public let name: String

    /// Creates a store holding `values`, keyed by name; `name` appears in diagnostics.
    public init(_ values: [String: PropertyListValue] = [:], name: String = "in-memory") {
        self.values = Locked(values)
        self.name = name
    }

    /// Everything the store holds, keyed by name.
    public var storedValues: [String: PropertyListValue] { snapshot() }

    /// The value held for `key`.
    public func value(forKey key: String) -> PropertyListValue? {
        values.withLock { $0[key] }
    }

    /// Everything the store holds, as one state.
    public func snapshot() -> [String: PropertyListValue] {
        values.withLock { $0 }
    }

    /// Applies the batch and announces what it changed, under the lock so announcements keep their order.
    ///
    /// Refuses what a suite's file would refuse, with the same error (``DefaultsBatch/checkStorable()``).
    public func apply(_ batch: DefaultsBatch) throws(DefaultsError) -> Bool {
        try batch.checkStorable()
        return values.withLock { values in
            guard let changed = batch.apply(to: &values) else { return false }
            changes.publish(changed)
            return true
        }
    }

    /// Memory is as durable as it gets: nothing to do.
    public func flush() {}
}
