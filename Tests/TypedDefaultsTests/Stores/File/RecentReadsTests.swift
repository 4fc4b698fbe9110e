import Foundation
import Testing

#if !TYPED_DEFAULTS_FOUNDATION_STORAGE  // needs the Linux file store; see FileStoreOnly.swift

@testable import TypedDefaults
import TypedDefaultsTestSupport

/// Tries to make the table of recent reads answer wrongly.
///
/// A suite finds a key it read last by the bytes of its name, without hashing it. These tests try to make that
/// table answer with a value that is gone, another key's value, or nothing for a key that has one.
@Suite("Reads that skip hashing the name")
struct RecentReadsTests {
    /// The three kinds of names the table sees: a literal (the same bytes on every read), a short name built
    /// at run time (its text is its bytes), and a long one built at run time (new storage, new bytes, each time).
    static func names(_ number: Int) -> [String] {
        let literals = ["alpha", "beta", "gamma", "a-rather-long-literal-key-name-for-the-table"]
        let long = "a key name long enough to need storage of its own, number \(number)"
        return [
            literals[number % literals.count], "k\(number)", String(long.utf8.map { Character(Unicode.Scalar($0)) }),
        ]
    }

    @Test("every write, removal, removeAll, reload and flush shows in the next read of every kind of name")
    func modelChecked() throws {
        let suite = IsolatedSuite(writePolicy: .coalesced(within: .seconds(60)))
        let store = try FileStore.suite(suite.name, directory: suite.directory.url)
        var model: [String: PropertyListValue] = [:]
        var generator = SeededGenerator(seed: 0x5EED)
        // 200 numbers make about 600 names: far more than the table's 64 entries, so entries are replaced.
        let numbers = 0..<200

        func checkReads(_ numbers: [Int], after step: String) {
            for number in numbers {
                for name in Self.names(number) {
                    #expect(store.value(forKey: name) == model[name], "\(name) after \(step)")
                }
            }
        }

        for step in 0..<3_000 {
            let number = numbers.randomElement(using: &generator)!
            let name = Self.names(number).randomElement(using: &generator)!
            let description: String
            switch Int.random(in: 0..<100, using: &generator) {
            case 0..<55:
                let value = PropertyListValue.integer(Int64(step))
                _ = try store.apply(DefaultsBatch(writes: [name: value]))
                model[name] = value
                description = "writing \(name)"
            case 55..<80:
                _ = try store.apply(DefaultsBatch(writes: [name: nil]))
                model[name] = nil
                description = "removing \(name)"
            case 80..<90:
                try store.flush()
                description = "a flush"
            case 90..<93:
                _ = try store.apply(DefaultsBatch(removesAll: true))
                model = [:]
                description = "removeAll"
            default:
                // Another program replaces the file; the store reads it when told to check.
                try store.flush()
                model[name] = .string("from elsewhere \(step)")
                let data = try PropertyListSerialization.data(
                    fromPropertyList: model.mapValues { $0.foundationObject },
                    format: .xml,
                    options: 0
                )
                let temporary = suite.directory.url.appendingPathComponent("replacement.plist")
                try data.write(to: temporary)
                #expect(rename(temporary.path, suite.fileURL.path) == 0)
                store.reloadNow()
                description = "another program's write of \(name)"
            }
            // The key just touched, a few others (so that their entries are current or replaced), and it again.
            checkReads(
                [number] + (0..<4).map { _ in numbers.randomElement(using: &generator)! } + [number],
                after: description
            )
        }
        checkReads(Array(numbers), after: "the whole run")
    }

    @Test("readers on other threads never see a key go back while a writer counts it up and flushes run")
    func concurrentReadersSeeNoOldValue() throws {
        let suite = IsolatedSuite(writePolicy: .coalesced(within: .seconds(60)))
        let store = try FileStore.suite(suite.name, directory: suite.directory.url)
        let names = ["alpha", "beta", "gamma", "a-rather-long-literal-key-name-for-the-table"]
        let last: Int64 = 3_000
        let wentBack = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            switch worker {
            case 0:
                for count in 1...last {
                    for name in names { _ = try? store.apply(DefaultsBatch(writes: [name: .integer(count)])) }
                    if count % 500 == 0 { try? store.flush() }
                }
            case 1:
                for _ in 0..<200 { try? store.flush() }
            default:
                var seen = Dictionary(uniqueKeysWithValues: names.map { ($0, Int64(0)) })
                let deadline = ContinuousClock.now + .seconds(60)
                while seen.values.contains(where: { $0 < last }) {
                    guard ContinuousClock.now < deadline else {
                        wentBack.withLock { $0.append("never saw every key reach \(last): \(seen)") }
                        break
                    }
                    for name in names {
                        guard case .integer(let count)? = store.value(forKey: name) else { continue }
                        if count < seen[name]! {
                            wentBack.withLock { $0.append("\(name): \(seen[name]!) then \(count)") }
                        }
                        seen[name] = count
                    }
                }
            }
        }
        #expect(wentBack.withLock { $0 }.isEmpty)
    }

    @Test("a removed value is not kept alive by the table, and a read after a removal finds nothing")
    func removedValueIsNotKept() throws {
        let suite = IsolatedSuite(writePolicy: .coalesced(within: .seconds(60)))
        let store = try FileStore.suite(suite.name, directory: suite.directory.url)
        final class Marker: NSObject {}
        weak var weakMarker: Marker?
        try {
            let marker = Marker()
            weakMarker = marker
            // A value whose storage the marker's lifetime follows: `Data` that owns the marker as its deallocator.
            let bytes = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 8)
            let data = Data(
                bytesNoCopy: bytes,
                count: 64,
                deallocator: .custom { pointer, _ in
                    withExtendedLifetime(marker) { pointer.deallocate() }
                }
            )
            _ = try store.apply(DefaultsBatch(writes: ["blob": .data(data)]))
            #expect(store.value(forKey: "blob") == .data(data))
        }()
        _ = try store.apply(DefaultsBatch(writes: ["blob": nil]))
        #expect(store.value(forKey: "blob") == nil)
        try store.flush()
        #expect(store.value(forKey: "blob") == nil)
        #expect(weakMarker == nil, "the removed value is still alive")
    }
}

#endif
