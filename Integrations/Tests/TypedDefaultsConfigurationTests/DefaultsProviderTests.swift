import Configuration
import Foundation
import Synchronization
import Testing
import TypedDefaults
import TypedDefaultsConfiguration

/// Keys, names, snapshots, secrets and watches in one process.
@Suite struct DefaultsProviderTests {
    let adapter = DefaultsAdapter(store: InMemoryStore(), keyStore: DefaultsKeys())

    @Test func aConfigKeyReadsTheDefaultsKeyOfItsComponentsJoinedByDots() throws {
        try adapter.set(3, for: Key<Int>("http.client.timeout", default: 0))
        try adapter.set(4, for: Key<Int>("timeout", default: 0))
        let provider = DefaultsProvider(adapter)
        let result = try provider.value(forKey: AbsoluteConfigKey(["http", "client", "timeout"]), type: .int)
        #expect(result == LookupResult(encodedKey: "http.client.timeout", value: ConfigValue(.int(3), isSecret: false)))
        #expect(try provider.value(forKey: AbsoluteConfigKey(["timeout"]), type: .int).value?.content == .int(4))

        let reader = ConfigReader(provider: provider)
        #expect(reader.int(forKey: "http.client.timeout") == 3)
        #expect(reader.scoped(to: "http").int(forKey: "client.timeout") == 3)
        #expect(reader.int(forKey: ConfigKey(["http", "client", "timeout"])) == 3)
    }

    @Test func theProviderNameNamesTheSuite() throws {
        let store = InMemoryStore()
        #expect(
            DefaultsProvider(DefaultsAdapter(store: store, keyStore: DefaultsKeys())).providerName
                == "DefaultsProvider[\(store.name)]"
        )
        #if !canImport(Darwin)
        let suite = try IsolatedSuite()
        #expect(DefaultsProvider(suite.adapter).providerName == "DefaultsProvider[\(suite.name)]")
        #endif
    }

    @Test func aSnapshotKeepsOneStateOfTheSuite() throws {
        let host = Key<String>("db.host", default: "")
        let port = Key<Int>("db.port", default: 0)
        try adapter.set("old.example.com", for: host)
        try adapter.set(1, for: port)
        let provider = DefaultsProvider(adapter)
        let snapshot = provider.snapshot()
        try adapter.set("new.example.com", for: host)
        try adapter.set(2, for: port)
        adapter.reset(host)

        #expect(try snapshot.value(forKey: ["db", "host"], type: .string).value?.content == .string("old.example.com"))
        #expect(try snapshot.value(forKey: ["db", "port"], type: .int).value?.content == .int(1))
        #expect(try provider.value(forKey: ["db", "host"], type: .string).value == nil)
        #expect(try provider.value(forKey: ["db", "port"], type: .int).value?.content == .int(2))
        #expect(snapshot.providerName == provider.providerName)
        #expect("\(snapshot)" == "\(provider.providerName)[2 values]")
    }

    @Test func valuesAreSecretWhenTheSpecifierOrTheReaderSaysSo() throws {
        try adapter.set("hunter2", for: Key<String>("db.password", default: ""))
        try adapter.set("db.example.com", for: Key<String>("db.host", default: ""))
        let plain = DefaultsProvider(adapter)
        #expect(try plain.value(forKey: ["db", "password"], type: .string).value?.isSecret == false)

        let specific = DefaultsProvider(adapter, secretsSpecifier: .specific(["db.password"]))
        #expect(try specific.value(forKey: ["db", "password"], type: .string).value?.isSecret == true)
        #expect(try specific.value(forKey: ["db", "host"], type: .string).value?.isSecret == false)
        #expect(try specific.snapshot().value(forKey: ["db", "password"], type: .string).value?.isSecret == true)

        let dynamic = DefaultsProvider(adapter, secretsSpecifier: .dynamic { key, _ in key.hasSuffix("password") })
        #expect(try dynamic.value(forKey: ["db", "password"], type: .string).value?.isSecret == true)

        let all = DefaultsProvider(adapter, secretsSpecifier: .all)
        let description = "\(try #require(all.value(forKey: ["db", "host"], type: .string).value))"
        #expect(description == "[string: <REDACTED>]")

        // The reader marks a value secret for the access it makes, whatever the provider says.
        let events = AccessEvents()
        let reader = ConfigReader(provider: plain, accessReporter: events)
        #expect(reader.string(forKey: "db.password", isSecret: true) == "hunter2")
        #expect(events.all.first?.providerResults.first.map { "\($0.result)" }?.contains("hunter2") == false)
    }

    @Test func fetchReadsTheCurrentValue() async throws {
        try adapter.set(8, for: Key<Int>("http.timeout", default: 0))
        let reader = ConfigReader(provider: DefaultsProvider(adapter))
        #expect(try await reader.fetchInt(forKey: "http.timeout") == 8)
    }

    @Test func watchValueStartsWithTheCurrentValueAndDeliversEachChangeOnce() async throws {
        let timeout = Key<Int?>("http.timeout")
        try adapter.set(1, for: timeout)
        let reader = ConfigReader(provider: DefaultsProvider(adapter))
        let adapter = self.adapter
        let delivered = Delivered<Int>()
        try await withTimeout {
            try await reader.watchInt(forKey: "http.timeout", default: 5) { updates in
                try await collecting(updates, into: delivered) {
                    try await delivered.wait(forCount: 1)
                    // Other keys' changes and writes of the same value deliver nothing.
                    try adapter.set("x", for: Key<String?>("http.host"))
                    try adapter.set(1, for: timeout)
                    try await Task.sleep(for: .milliseconds(100))
                    try adapter.set(2, for: timeout)
                    try await delivered.wait(forCount: 2)
                    adapter.reset(timeout)
                    try await delivered.wait(forCount: 3)
                    try adapter.set("soon", for: Key<String?>("http.timeout"))  // a mismatch reads as the default
                    try await delivered.wait(forCount: 4)
                    try adapter.set(3, for: timeout)
                    try await delivered.wait(forCount: 5)
                }
            }
        }
        #expect(delivered.all == [1, 2, 5, 5, 3])
    }

    @Test func watchSnapshotStartsWithTheCurrentStateAndDeliversEachChange() async throws {
        try adapter.set(1, for: Key<Int>("a", default: 0))
        let provider = DefaultsProvider(adapter)
        let adapter = self.adapter
        let delivered = Delivered<[Int?]>()
        try await withTimeout {
            try await provider.watchSnapshot { updates in
                let states = updates.map { snapshot in
                    ["a", "b"].map { try? snapshot.value(forKey: [$0], type: .int).value?.content.int }
                }
                try await collecting(states, into: delivered) {
                    try await delivered.wait(forCount: 1)
                    try adapter.set(1, for: Key<Int>("a", default: 0))  // no change
                    try await Task.sleep(for: .milliseconds(100))
                    try adapter.set(2, for: Key<Int>("b", default: 0))
                    try await delivered.wait(forCount: 2)
                    adapter.removeAll()
                    try await delivered.wait(forCount: 3)
                }
            }
        }
        #expect(delivered.all == [[1, nil], [1, 2], [nil, nil]])
    }

    @Test func watchesEndWhenTheHandlerReturnsAndLeaveNoObserverBehind() async throws {
        let provider = DefaultsProvider(adapter)
        let first = try await provider.watchValue(forKey: ["a"], type: .int) { updates in
            await updates.first { _ in true }.map { try? $0.get().value }
        }
        #expect(first == .some(nil))
        // A handler that returned leaves a stream that ends: nothing keeps a watch of it running.
        let ended = try await withTimeout {
            try await provider.watchSnapshot { updates in updates }
        }
        var iterator = ended.makeAsyncIterator()
        _ = try await iterator.next()  // the first state, if it was still buffered
        #expect(try await iterator.next() == nil)
    }
}

extension ConfigContent {
    /// The integer, if this is one.
    var int: Int? { if case .int(let value) = self { value } else { nil } }
}

/// The access events a reader reports, for the tests to look at.
final class AccessEvents: AccessReporter, Sendable {
    private let events = Mutex<[AccessEvent]>([])
    var all: [AccessEvent] { events.withLock { $0 } }
    func report(_ event: AccessEvent) { events.withLock { $0.append(event) } }
}

/// The calls users outside the repository write, kept compiling here; never run, since the suite it opens is
/// the user's own `~/.config/app.plist`.
func callsUsersWrite() async throws {
    let adapter = try DefaultsAdapter(suiteName: "app", keyStore: DefaultsKeys())
    let reader = ConfigReader(provider: DefaultsProvider(adapter))
    _ = reader.int(forKey: "http.timeout", default: 5)
    try await reader.watchInt(forKey: "http.timeout", default: 5) { updates in for await v in updates { print(v) } }
}

/// A store that announces its changes without their old values, as a store that learns only of new values
/// (a remote service's notifications, say) does.
final class NewValuesOnlyStore: DefaultsStore {
    private let values = Mutex<[String: PropertyListValue]>([:])
    let name = "new-values-only"
    let changes = DefaultsStoreChanges()

    func value(forKey key: String) -> PropertyListValue? { values.withLock { $0[key] } }
    func snapshot() -> [String: PropertyListValue] { values.withLock { $0 } }

    func apply(_ batch: DefaultsBatch) -> Bool {
        values.withLock { values in
            guard let changed = batch.apply(to: &values) else { return false }
            changes.publish(changed.map { DefaultsStoreChange(key: $0.key, oldValue: nil, newValue: $0.newValue) })
            return true
        }
    }

    func flush() {}
}

@Suite struct StoresOfTheirOwnTests {
    @Test func aSnapshotWatchOfAStoreThatAnnouncesOnlyNewValuesDeliversEachChangeOnce() async throws {
        let adapter = DefaultsAdapter(store: NewValuesOnlyStore(), keyStore: DefaultsKeys())
        let timeout = Key<Int?>("http.timeout")
        try adapter.set(1, for: timeout)
        let provider = DefaultsProvider(adapter)
        #expect(provider.providerName == "DefaultsProvider[new-values-only]")
        let delivered = Delivered<Int?>()
        try await withTimeout {
            try await provider.watchSnapshot { updates in
                let timeouts = updates.map {
                    try? $0.value(forKey: ["http", "timeout"], type: .int).value?.content.int
                }
                try await collecting(timeouts, into: delivered) {
                    try await delivered.wait(forCount: 1)
                    try adapter.set(2, for: timeout)
                    try await delivered.wait(forCount: 2)
                    adapter.reset(timeout)
                    try await delivered.wait(forCount: 3)
                }
            }
        }
        #expect(delivered.all == [1, 2, nil])
    }
}
