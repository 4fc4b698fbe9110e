import Foundation
import Testing

@testable import TypedDefaults

/// Adapters are Sendable values: many tasks may read and write through one at once.
///
/// CI runs these under `swift test --sanitize=thread` too.
@Suite("Concurrency")
struct ConcurrencyTests {
    @Test("many tasks writing distinct keys of one suite lose nothing")
    func distinctKeys() async throws {
        let suite = IsolatedSuite()
        let defaults = suite.adapter
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for round in 0..<20 {
                        let key = Key<Int>("task\(task).key\(round % 5)", default: -1)
                        defaults[key: key] = round
                        _ = defaults[key: key]
                        _ = defaults.hasKey(key)
                    }
                }
            }
        }
        let reader = try suite.secondAdapter(keyStore: DefaultsKeys())
        for task in 0..<8 {
            for slot in 0..<5 {
                #expect(reader[key: Key<Int>("task\(task).key\(slot)", default: -1)] == 15 + slot)
            }
        }
        #expect(try suite.fileContents().count == 40)
    }

    @Test("the global Defaults and its key paths are usable from any task")
    func globalAdapterIsSendable() async {
        // Reading only: the test process's own `.standard` file is not written.
        let values = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<4 { group.addTask { Defaults[key: Key<Int>("never.written.\(UUID())", default: 7)] } }
            return await group.reduce(0, +)
        }
        #expect(values == 28)
    }

    @Test("the in-memory store is safe across tasks")
    func inMemory() async {
        let store = InMemoryStore()
        let defaults = DefaultsAdapter(store: store, keyStore: DefaultsKeys())
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for round in 0..<200 { defaults[key: Key<Int>("k\(task)", default: 0)] = round }
                }
            }
        }
        #expect(store.storedValues.count == 8)
        #expect(store.storedValues.values.allSatisfy { $0 == .integer(199) })
    }
}
