import Foundation
import Testing

@testable import TypedDefaults

/// `modify` under contention retries as long as other writers make progress, and only gives up for a body
/// that writes its own value or a store that refuses for no reason.
@Suite("Modify under contention")
struct ModifyContentionTests {
    @Test("16 threads incrementing one key never give up and lose nothing", arguments: ["memory", "file"])
    func heavyContention(_ kind: String) async throws {
        let suite = IsolatedSuite()
        let store: any DefaultsStore = kind == "memory" ? InMemoryStore() : suite.adapter.store
        let rounds = kind == "memory" ? 300 : 40
        let errors = Locked<[String]>([])
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    let adapter = DefaultsAdapter(store: store, keyStore: DefaultsKeys())
                    for _ in 0..<rounds {
                        do {
                            try adapter.modify(\.launchCount) { $0 += 1 }
                        } catch {
                            errors.withLock { $0.append("\(error)") }
                        }
                    }
                }
            }
        }
        #expect(errors.withLock { $0 }.isEmpty, "\(errors.withLock { $0.prefix(3) })")
        #expect(DefaultsAdapter(store: store, keyStore: DefaultsKeys()).launchCount == 16 * rounds)
    }

    @Test("a modify body that writes its own key through another adapter on the same store fails at once")
    func bodyWritingThroughAnotherAdapter() throws {
        let store = InMemoryStore()
        let first = DefaultsAdapter(store: store, keyStore: DefaultsKeys())
        let second = DefaultsAdapter(store: store, keyStore: DefaultsKeys())
        var runs = 0
        let error = #expect(throws: DefaultsError.self) {
            try first.modify(\.launchCount) { value in
                runs += 1
                second.launchCount = 7
                value += 1
            }
        }
        #expect(runs == 1)
        #expect("\(String(describing: error))".contains("wrote the value it modifies"))
        // Writing other keys, or the same key of another store, is fine.
        try first.modify(\.launchCount) { value in
            second.volume = 0.25
            DefaultsAdapter(store: InMemoryStore(), keyStore: DefaultsKeys()).launchCount = 3
            value = 41
        }
        #expect(first.launchCount == 41)
        #expect(first.volume == 0.25)
    }
}
