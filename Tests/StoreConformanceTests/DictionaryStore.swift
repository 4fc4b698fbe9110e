import Foundation
import TypedDefaults

/// A store written the way an app would write its own, on the public API only: a dictionary behind a lock.
///
/// `DefaultsBatch.apply(to:)` does the batch's work (expectations, removals, the list of changes); the store
/// only makes it atomic and announces the changes before releasing its lock, so announcements keep their
/// order. Nothing it was given runs under the lock: `publish` only queues the changes for observers.
final class DictionaryStore: DefaultsStore, @unchecked Sendable {
    // `values` is only read or written while holding `lock`.
    private let lock = NSLock()
    private var values: [String: PropertyListValue] = [:]

    let name: String
    let changes = DefaultsStoreChanges()

    init(name: String = "dictionary") {
        self.name = name
    }

    func value(forKey key: String) -> PropertyListValue? {
        lock.lock()
        defer { lock.unlock() }
        return values[key]
    }

    func snapshot() -> [String: PropertyListValue] {
        lock.lock()
        defer { lock.unlock() }
        return values
    }

    func apply(_ batch: DefaultsBatch) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let changed = batch.apply(to: &values) else { return false }
        changes.publish(changed)
        return true
    }

    /// Memory only: nothing to make durable.
    func flush() {}
}
