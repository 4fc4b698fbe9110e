import Foundation
import Testing

@testable import TypedDefaults

/// Stores of the program's own are flushed by `DefaultsShutdown.flushAll()`, as suites are: tested in child
/// processes (SignalTests), since the call flushes every store of the process, and other tests hold theirs.
@Suite("Stores of the program's own at shutdown")
struct OpenStoresTests {
    /// A store of the program's own; values live in an `InMemoryStore`.
    final class CountingStore: DefaultsStore {
        let name: String
        private let memory = InMemoryStore()

        init(name: String) {
            self.name = name
        }

        var changes: DefaultsStoreChanges { memory.changes }
        func value(forKey key: String) -> PropertyListValue? { memory.value(forKey: key) }
        func snapshot() -> [String: PropertyListValue] { memory.snapshot() }
        func apply(_ batch: DefaultsBatch) throws(DefaultsError) -> Bool { try memory.apply(batch) }
        func flush() {}
    }

    @Test("a store an adapter is made over is listed for the flush at shutdown")
    func adapterListsItsStore() {
        let store = CountingStore(name: "listed-\(UUID())")
        let adapter = DefaultsAdapter(store: store, keyStore: DefaultsKeys())
        #expect(OpenStores.all.contains { $0 === store })
        withExtendedLifetime(adapter) {}
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
