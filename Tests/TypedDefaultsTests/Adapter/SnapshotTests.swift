import Foundation
import Testing

@testable import TypedDefaults

extension DefaultsKeys {
    fileprivate var host: Key<String> { .init("host", default: "localhost") }
    fileprivate var port: Key<Int> { .init("port", default: 8080) }
}

@Suite("Snapshots")
struct SnapshotTests {
    @Test("a snapshot never shows half of a change, however writers race with it")
    func consistentUnderWriters() async throws {
        let suite = IsolatedSuite(writePolicy: .coalesced)
        let writer = try suite.secondAdapter(keyStore: DefaultsKeys())
        let defaults = suite.adapter
        try writer.modifyStoredValues { $0 = ["host": .string("server0"), "port": .integer(0)] }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // Each change moves both keys together, to server N on port N.
                for round in 1...150 {
                    try? writer.modifyStoredValues { values in
                        values["host"] = .string("server\(round)")
                        values["port"] = .integer(Int64(round))
                    }
                }
            }
            for _ in 0..<2 {
                group.addTask {
                    for _ in 0..<2_000 {
                        let settings = defaults.snapshot()
                        #expect(settings.host == "server\(settings.port)", "a snapshot mixed two states")
                    }
                }
            }
        }
        #expect(defaults.snapshot().port == 150)
    }

    @Test("a snapshot keeps the state it was taken in; launch arguments and defaults apply as for the adapter")
    func keepsItsState() throws {
        let store = InMemoryStore(["host": .string("a"), "port": .integer(1)])
        let defaults = DefaultsAdapter(
            store: store,
            keyStore: DefaultsKeys(),
            launchArguments: .parsing(["-volume", "0.25"])
        )
        let before = defaults.snapshot()
        defaults[\.host] = "b"
        #expect(before.host == "a")
        #expect(before[\.port] == 1)
        #expect(before[key: Key<String>("host", default: "")] == "a")
        #expect(before.volume == 0.25, "the launch argument overrides the key")
        #expect(before.launchCount == 0, "nothing stored: the key's default")
        #expect(before.storedValues == ["host": .string("a"), "port": .integer(1)])
        #expect(defaults.snapshot().host == "b")
    }
}
