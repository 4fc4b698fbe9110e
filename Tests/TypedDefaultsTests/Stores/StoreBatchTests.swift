import Foundation
import Testing

@testable import TypedDefaults

/// Batches applied to a built-in store directly, not through an adapter, meet the same checks.
@Suite("Store batches")
struct StoreBatchTests {
    /// Values no property-list file can carry back exactly.
    static let unstorable: [(String, DefaultsBatch)] = {
        var deep = PropertyListValue.integer(1)
        for _ in 0..<(PropertyListValue.maximumDepth + 5) { deep = .array([deep]) }
        return [
            ("a control character in a key", DefaultsBatch(writes: ["bell\u{7}": .integer(1)])),
            ("a NUL in a string", DefaultsBatch(writes: ["name": .string("a\u{0}b")])),
            ("a byte order mark first", DefaultsBatch(writes: ["name": .string("\u{FEFF}a")])),
            ("a value nested too deep", DefaultsBatch(writes: ["deep": deep])),
            ("a date after 9999", DefaultsBatch(writes: ["when": .date(Date(timeIntervalSince1970: 1e12))])),
            (
                "a date with a fraction of a second, which a file keeps in whole seconds",
                DefaultsBatch(writes: ["when": .array([.date(Date(timeIntervalSinceReferenceDate: 86_400.25))])])
            ),
            (
                "an unstorable value with an expectation",
                DefaultsBatch(writes: ["name": .string("\u{1}")], expected: .values(["name": nil]))
            ),
        ]
    }()

    @Test("every built-in store refuses a batch it could not read back, and keeps what it had")
    func refusesUnstorable() throws {
        let suite = IsolatedSuite()
        suite.adapter.username = "kept"
        let instance = try #require(UserDefaults(suiteName: suite.directory.plist("instance").path))
        let stores: [any DefaultsStore] = [
            suite.adapter.store,
            InMemoryStore(["username": .string("kept")]),
            UserDefaultsStore(instance),
        ]
        let file = try Data(contentsOf: suite.fileURL)
        for store in stores {
            let before = store.snapshot()
            for (what, batch) in Self.unstorable {
                let error = #expect(throws: DefaultsError.self, "\(store.name): \(what)") { try store.apply(batch) }
                guard case .valueNotStorable? = error else {
                    Issue.record("\(store.name): \(what): expected valueNotStorable, got \(String(describing: error))")
                    continue
                }
                #expect(store.snapshot() == before, "\(store.name): \(what) changed the store")
            }
            try store.flush()
        }
        #expect(try Data(contentsOf: suite.fileURL) == file, "the suite's file changed")
    }
}
