import Foundation
import Testing
import TypedDefaults
import TypedDefaultsTesting

/// The keys of an app under test.
struct AppKeys: Sendable {
    var username: Key<String?> { .init("username") }
    var theme: Key<String> { .init("theme", default: "system") }
    var launchCount: Key<Int> { .init("launchCount", default: 0) }
}

/// What an app's tests see when its settings store fails, is slow, or is changed by another process.
@Suite("FaultyStore")
struct FaultyStoreTests {
    @Test("a write to a failing store throws writeFailed naming the key, and changes nothing")
    func failingWriteThrows() throws {
        let store = FaultyStore(["username": .string("Ann")])
        let settings = DefaultsAdapter(store: store, keyStore: AppKeys(), writePolicy: .immediate)
        store.failWrites(reason: "the disk is full")

        #expect(throws: DefaultsError.writeFailed(suite: "faulty", key: "username", reason: "the disk is full")) {
            try settings.set("Bob", for: \.username)
        }
        #expect(settings.username == "Ann")
        #expect(store.storedValues == ["username": .string("Ann")])
        #expect(store.applyCount == 1)

        store.removeFaults()
        try settings.set("Bob", for: \.username)
        #expect(settings.username == "Bob")
        #expect(store.durableValues["username"] == .string("Bob"))
    }

    @Test("a store can throw any error given, from every kind of write")
    func givenError() {
        let store = FaultyStore()
        let settings = DefaultsAdapter(store: store, keyStore: AppKeys())
        let error = DefaultsError.unsafeFile(path: "/settings.plist", reason: "it is a directory")
        store.failWrites(with: error)
        #expect(throws: error) { try settings.set(3, for: \.launchCount) }
        #expect(throws: error) { try settings.modify(\.launchCount) { $0 += 1 } }
        #expect(throws: error) { try settings.modifyStoredValues { $0.removeAll() } }
        #expect(store.applyCount == 3)
    }

    /// The subscript cannot throw, so the failure goes to the diagnostics handler, here standard error.
    ///
    /// In a child process: the handler is one per process, and other tests' handlers must not see this, nor
    /// it them.
    @Test("a subscript write to a failing store reports a writeFailed diagnostic")
    func failingSubscriptReportsDiagnostic() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            DefaultsDiagnostics.resetHandler()
            let store = FaultyStore(name: "app settings")
            let settings = DefaultsAdapter(store: store, keyStore: AppKeys(), writePolicy: .immediate)
            store.failWrites(reason: "the disk is full")
            settings.theme = "dark"
            guard settings.theme == "system", store.applyCount == 1 else { exit(1) }
        }
        let errors = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(
            errors.contains(
                "TypedDefaults[app settings]: writing \"theme\" to suite \"app settings\" failed: the disk is full"
            ),
            "standard error: \(errors)"
        )
    }

    @Test("a failing flush throws, keeps the values in memory, and a later flush writes them")
    func failingFlush() async throws {
        let store = FaultyStore()
        let settings = DefaultsAdapter(store: store, keyStore: AppKeys(), writePolicy: .coalesced(within: .seconds(60)))
        store.failFlushes(reason: "the disk is full")
        settings.theme = "dark"

        await #expect(throws: DefaultsError.writeFailed(suite: "faulty", key: nil, reason: "the disk is full")) {
            try await settings.flush()
        }
        #expect(settings.theme == "dark")
        #expect(store.durableValues["theme"] == nil)
        // `modify` promises durability when it returns, so it fails too, and changes nothing.
        #expect(throws: DefaultsError.self) { try settings.modify(\.launchCount) { $0 += 1 } }
        #expect(settings.launchCount == 0)

        store.removeFaults()
        try await settings.flush()
        #expect(store.durableValues == ["theme": .string("dark")])
        #expect(store.flushCount == 2)
    }

    @Test("a held flush makes flush() wait until released")
    func heldFlushWaits() async throws {
        let store = FaultyStore()
        let settings = DefaultsAdapter(store: store, keyStore: AppKeys(), writePolicy: .coalesced(within: .seconds(60)))
        settings.username = "Ann"
        store.holdsFlushes = true
        let finished = Guarded(false)
        let saving = Task {
            try await settings.flush()
            finished.withLock { $0 = true }
        }
        #expect(await waitUntil { store.waitingFlushes == 1 })
        #expect(!finished.withLock { $0 })
        #expect(store.durableValues["username"] == nil)

        store.holdsFlushes = false
        try await saving.value
        #expect(store.durableValues["username"] == .string("Ann"))
        #expect(store.waitingFlushes == 0)
    }

    @Test("a flush delay makes every flush take at least that long")
    func delayedFlush() async throws {
        let store = FaultyStore()
        let settings = DefaultsAdapter(store: store, keyStore: AppKeys(), writePolicy: .coalesced(within: .seconds(60)))
        store.flushDelay = .milliseconds(200)
        settings.launchCount = 1
        let clock = ContinuousClock()
        let start = clock.now
        try await settings.flush()
        // A lower bound only: sleeping never ends early, however busy the machine.
        #expect(clock.now - start >= .milliseconds(200))
        #expect(store.durableValues["launchCount"] == .integer(1))
    }

    @Test("a simulated change from another process reaches observers and reads")
    func externalChangeReachesObservers() async throws {
        let store = FaultyStore(["theme": .string("light")])
        let settings = DefaultsAdapter(store: store, keyStore: AppKeys())
        let seen = Guarded<[String]>([])
        let observation = settings.observe(\.theme) { change in
            seen.withLock { $0.append("\(change.oldValue) → \(change.newValue)") }
        }
        defer { observation.invalidate() }

        store.simulateExternalChange(["theme": .string("dark"), "username": .string("Bob")])
        #expect(settings.theme == "dark")
        #expect(settings.username == "Bob")
        #expect(store.durableValues["theme"] == .string("dark"))
        #expect(await waitUntil { seen.withLock { $0 } == ["light → dark"] })

        store.simulateExternalChange(["theme": nil])
        #expect(await waitUntil { seen.withLock { $0 } == ["light → dark", "dark → system"] })
        #expect(store.applyCount == 0)
    }

    @Test("faults do not stop another process's changes")
    func externalChangeWhileFailing() {
        let store = FaultyStore()
        let settings = DefaultsAdapter(store: store, keyStore: AppKeys())
        store.failWrites()
        store.failFlushes()
        store.simulateExternalChange(["launchCount": .integer(4)])
        #expect(settings.launchCount == 4)
        #expect(throws: DefaultsError.self) { try settings.set(5, for: \.launchCount) }
    }
}

/// Waits until `condition` holds, for at most ten seconds; returns whether it held.
func waitUntil(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(10)
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}
