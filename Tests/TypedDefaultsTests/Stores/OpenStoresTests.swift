import Foundation
import Testing

@testable import TypedDefaults

/// Stores of the program's own are flushed by `DefaultsShutdown.flushAll()`, as suites are.
@Suite("Stores of the program's own at shutdown")
struct OpenStoresTests {
    /// Counts flushes, and fails them on demand; values live in an `InMemoryStore`.
    final class CountingStore: DefaultsStore {
        let name: String
        let failing: Bool
        private let memory = InMemoryStore()
        private let flushes = Locked(0)

        init(name: String, failing: Bool = false) {
            self.name = name
            self.failing = failing
        }

        var flushCount: Int { flushes.withLock { $0 } }
        var changes: DefaultsStoreChanges { memory.changes }
        func value(forKey key: String) -> PropertyListValue? { memory.value(forKey: key) }
        func snapshot() -> [String: PropertyListValue] { memory.snapshot() }
        func apply(_ batch: DefaultsBatch) throws(DefaultsError) -> Bool { try memory.apply(batch) }

        func flush() throws(DefaultsError) {
            flushes.withLock { $0 += 1 }
            if failing { throw .writeFailed(suite: name, key: nil, reason: "the server is gone") }
        }
    }

    @Test("flushAll() flushes a store an adapter was made over, with its coalesced write still pending")
    func flushAllFlushesOwnStore() throws {
        let store = CountingStore(name: "own-\(UUID())")
        let defaults = DefaultsAdapter(
            store: store,
            keyStore: DefaultsKeys(),
            writePolicy: .coalesced(within: .seconds(3600))
        )
        defaults[key: Key<Int>("k", default: 0)] = 1
        #expect(store.flushCount == 0)
        // Throws when another test's store fails meanwhile; this store's flush is what counts here.
        _ = try? DefaultsShutdown.flushAll()
        #expect(store.flushCount == 1)
    }

    @Test("flushAll() flushes every store past one that fails, and throws the failure")
    func flushAllKeepsGoing() throws {
        let failing = CountingStore(name: "failing-\(UUID())", failing: true)
        let healthy = CountingStore(name: "healthy-\(UUID())")
        let adapters = [failing, healthy].map { DefaultsAdapter(store: $0, keyStore: DefaultsKeys()) }
        // The first failure is thrown: this store's, or another test's failing store's.
        #expect(throws: DefaultsError.self) { try DefaultsShutdown.flushAll() }
        #expect(failing.flushCount == 1)
        #expect(healthy.flushCount == 1)
        withExtendedLifetime(adapters) {}
    }

    @Test("a store nobody uses any more is not kept alive for the flush")
    func releasedStoreIsForgotten() {
        weak var released: CountingStore?
        do {
            let store = CountingStore(name: "released-\(UUID())")
            released = store
            _ = DefaultsAdapter(store: store, keyStore: DefaultsKeys())
        }
        #expect(released == nil)
        #expect(!OpenStores.all.contains { $0.name.hasPrefix("released-") })
    }
}
