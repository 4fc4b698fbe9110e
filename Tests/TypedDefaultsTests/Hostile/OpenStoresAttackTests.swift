import Foundation
import Testing

#if !TYPED_DEFAULTS_FOUNDATION_STORAGE  // the signal flush is the Linux file store's

@testable import TypedDefaults

#if canImport(Glibc)
import Glibc
#endif

/// Attacks on the shutdown flush of stores of the program's own (OpenStores): stores with locks of their own,
/// and flushes that re-enter the library.
extension Hostile {
    @Suite("Hostile: stores of the program's own at shutdown")
    struct OpenStoresAttackTests {
        /// A store of the program's own that keeps nothing durable (one per user of a server, say).
        final class PerUserStore: DefaultsStore {
            let name = "per-user"
            private let memory = InMemoryStore()
            var changes: DefaultsStoreChanges { memory.changes }
            func value(forKey key: String) -> PropertyListValue? { memory.value(forKey: key) }
            func snapshot() -> [String: PropertyListValue] { memory.snapshot() }
            func apply(_ batch: DefaultsBatch) throws(DefaultsError) -> Bool { try memory.apply(batch) }
            func flush() throws(DefaultsError) {}
        }

        @Test("the list of stores to flush keeps no more than twice the stores in use, however many come and go")
        func manyOpenStores() throws {
            // Listing a store once swept the whole list (n stores cost n^2 / 2: 20,000 adapters took 126 s in a
            // debug build); the list is swept when it has doubled, which this bound holds it to.
            let kept = (0..<500).map { _ in DefaultsAdapter(store: PerUserStore(), keyStore: DefaultsKeys()) }
            for _ in 0..<5000 { _ = DefaultsAdapter(store: PerUserStore(), keyStore: DefaultsKeys()) }
            let live = OpenStores.all.count
            #expect(live >= kept.count)
            // Other tests' stores come and go meanwhile: the bound is on entries against stores alive at the end,
            // with the slack of one sweep's worth of stores made since.
            #expect(OpenStores.entryCount <= 2 * max(live, 8) + 64, "\(OpenStores.entryCount) entries, \(live) live")
            withExtendedLifetime(kept) {}
        }

        @Test("a store whose flush() calls DefaultsShutdown.flushAll() is flushed once at exit, not forever")
        func reentrantFlushAtExit() throws {
            let directory = TemporaryConfigDirectory()
            let file = directory.url.appendingPathComponent("server.json")
            let child = try Helper.start(["own-store-reentrant", file.path], configDirectory: directory.url)
            try #require(eventually(within: .seconds(30)) { !child.process.isRunning })
            child.process.waitUntilExit()
            #expect(child.process.terminationReason == .exit, "\(child.output)")
            #expect(child.process.terminationStatus == 0)
            #expect(!child.output.contains("reentered=50"), "\(child.output)")
            let saved = (try? Data(contentsOf: file)).flatMap { try? JSONSerialization.jsonObject(with: $0) }
            #expect(saved as? [String: String] == ["k": "v"])
        }
    }
}
#endif
