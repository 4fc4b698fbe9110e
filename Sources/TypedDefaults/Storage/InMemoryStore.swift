/// A store that keeps values in memory only: for testing code that takes a ``DefaultsAdapter`` without files.
///
/// It stores exactly what a suite on disk would store (the same bridges produce the same
/// ``PropertyListValue``s and the same checks refuse the same values), so what passes against it behaves
/// the same on a real suite. Launch arguments are ignored unless you pass some.
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
public final class InMemoryStore: Sendable {
    private let values: Locked<[String: PropertyListValue]>
    let changes = ChangeHub()

    /// Creates a store holding `values`, keyed by name.
    public init(_ values: [String: PropertyListValue] = [:]) {
        self.values = Locked(values)
    }

    /// Everything the store holds, keyed by name.
    public var storedValues: [String: PropertyListValue] {
        values.withLock { $0 }
    }
}

extension InMemoryStore: DefaultsStorage {
    var suiteName: String { "in-memory" }

    func value(forKey key: String) -> PropertyListValue? {
        values.withLock { $0[key] }
    }

    func allValues() -> [String: PropertyListValue] { storedValues }

    func modifyAll(
        _ transform: (inout [String: PropertyListValue]) throws(DefaultsError) -> Void
    ) throws(DefaultsError) {
        try ReadModifyWrite.run(suite: suiteName, key: nil, from: storedValues, inPlace: transform) { expected, new in
            update { values -> [String: PropertyListValue]? in
                guard values.isIdentical(to: expected) else { return values }
                values = new
                return nil
            }
        }
    }

    func hasValue(forKey key: String) -> Bool {
        values.withLock { $0[key] != nil }
    }

    func setValue(_ value: PropertyListValue?, forKey key: String) {
        update { $0[key] = value }
    }

    func removeAll() {
        update { $0.removeAll() }
    }

    func modify(
        _ key: String,
        _ transform: (PropertyListValue?) throws(DefaultsError) -> PropertyListValue?
    ) throws(DefaultsError) {
        try ReadModifyWrite.run(suite: suiteName, key: key, from: value(forKey: key), transform) { expected, new in
            update { values -> PropertyListValue?? in
                guard values[key].isIdentical(to: expected) else { return .some(values[key]) }
                values[key] = new
                return .none
            }
        }
    }

    /// Changes the values and announces what changed, under the lock so announcements keep their order;
    /// `change` is the library's own code.
    private func update<Result>(_ change: (inout [String: PropertyListValue]) -> Result) -> Result {
        values.withLock { values in
            let before = values
            let result = change(&values)
            if changes.hasObservers, !Propagation.isSuppressed {
                changes.publish(before.changes(to: values))
            }
            return result
        }
    }

    func flush() {}

    func scheduleFlush(within delay: Duration) {}

    func finishBackgroundWork() {}

    func checkFile() {}
}
