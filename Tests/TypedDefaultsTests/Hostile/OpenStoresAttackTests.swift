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
        @Test("SIGTERM while the main thread is inside a store's apply still flushes that store")
        func signalDuringOwnStoreApply() throws {
            let directory = TemporaryConfigDirectory()
            let file = directory.url.appendingPathComponent("server.json")
            let child = try Helper.start(["own-store-locked", file.path], configDirectory: directory.url)
            try #require(child.waitForOutput(containing: "written"))
            // The main thread writes in a loop; nearly all of its time is inside the store's apply, which holds
            // the store's own lock for a 200 ms round trip.
            usleep(500_000)
            let sent = ContinuousClock.now
            kill(child.process.processIdentifier, SIGTERM)
            try #require(eventually(within: .seconds(30)) { !child.process.isRunning })
            child.process.waitUntilExit()
            let took = ContinuousClock.now - sent
            #expect(child.process.terminationReason == .uncaughtSignal)
            #expect(child.process.terminationStatus == SIGTERM)
            // The apply it was in needed 200 ms more; the flush should not have waited out the 5 s bound.
            #expect(took < .seconds(3), "ended \(took) after SIGTERM")
            let saved = (try? Data(contentsOf: file)).flatMap { try? JSONSerialization.jsonObject(with: $0) }
            #expect((saved as? [String: String])?["k"]?.hasPrefix("v") == true, "nothing flushed: \(child.output)")
        }

        /// A store of the program's own that keeps nothing durable (one per user of a server, say).
        final class PerUserStore: DefaultsStore, @unchecked Sendable {
            let name = "per-user"
            private let memory = InMemoryStore()
            var changes: DefaultsStoreChanges { memory.changes }
            func value(forKey key: String) -> PropertyListValue? { memory.value(forKey: key) }
            func snapshot() -> [String: PropertyListValue] { memory.snapshot() }
            func apply(_ batch: DefaultsBatch) throws(DefaultsError) -> Bool { try memory.apply(batch) }
            func flush() throws(DefaultsError) {}
        }

        @Test("making an adapter over a store of the program's own costs the same with 5000 others open")
        func manyOpenStores() throws {
            func make(_ count: Int) -> (Duration, [DefaultsAdapter<DefaultsKeys>]) {
                let clock = ContinuousClock()
                let start = clock.now
                let adapters = (0..<count).map { _ in DefaultsAdapter(store: PerUserStore(), keyStore: DefaultsKeys()) }
                return (clock.now - start, adapters)
            }
            let (few, kept) = make(500)
            let (many, more) = make(5000)
            // Measured (debug build, 2 cores): 1000 adapters 87 ms, 20000 adapters 126 s: each one made filters
            // the whole list of open stores (OpenStores.remember), so n adapters cost n^2 / 2 weak loads.
            // Linear would be 10 times as long; allow 30.
            #expect(many < few * 30, "500 adapters: \(few), 5000 (ten times as many): \(many)")
            withExtendedLifetime((kept, more)) {}
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
