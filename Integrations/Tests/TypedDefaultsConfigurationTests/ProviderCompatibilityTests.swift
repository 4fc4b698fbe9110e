import Configuration
import ConfigurationTesting
import Foundation
import Testing
import TypedDefaults
import TypedDefaultsConfiguration

/// swift-configuration's own compatibility kit, over suites filled through typed keys, as an app fills them.
@Suite struct ProviderCompatibilityTests {
    @Test func inMemoryStorePassesTheKit() async throws {
        let adapter = DefaultsAdapter(store: InMemoryStore(), keyStore: DefaultsKeys())
        try Self.fillWithTheKitsValues(adapter)
        try await ProviderCompatTest(provider: DefaultsProvider(adapter)).runTest()
    }

    #if !canImport(Darwin)
    @Test func suiteFilePassesTheKit() async throws {
        let suite = try IsolatedSuite()
        try Self.fillWithTheKitsValues(suite.adapter)
        try await ProviderCompatTest(provider: DefaultsProvider(suite.adapter)).runTest()
    }
    #endif

    /// The values `ProviderCompatTest` expects, written as an app writes them: through `Key`s of Swift types.
    static func fillWithTheKitsValues(_ adapter: DefaultsAdapter<DefaultsKeys>) throws {
        let magic = Data([0x6d, 0x61, 0x67, 0x69, 0x63])
        let magic2 = Data([0x6d, 0x61, 0x67, 0x69, 0x63, 0x32])
        func store<Value: DefaultsSerializable>(_ value: Value, _ name: String) throws {
            try adapter.set(value, for: Key<Value?>(name))
        }
        try store("Hello", "string")
        try store("Other Hello", "other.string")
        try store(42, "int")
        try store(24, "other.int")
        try store(3.14, "double")
        try store(2.72, "other.double")
        try store(true, "bool")
        try store(false, "other.bool")
        try store(magic, "bytes")
        try store(magic2, "other.bytes")
        try store(["Hello", "World"], "stringy.array")
        try store(["Hello", "Swift"], "other.stringy.array")
        try store([42, 24], "inty.array")
        try store([16, 32], "other.inty.array")
        try store([3.14, 2.72], "doubly.array")
        try store([0.9, 1.8], "other.doubly.array")
        try store([true, false], "booly.array")
        try store([false, true, true], "other.booly.array")
        try store([magic, magic2], "byteChunky.array")
        try store([magic, magic2, magic], "other.byteChunky.array")
    }
}
