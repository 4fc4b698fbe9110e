import Foundation
import Testing

#if !TYPED_DEFAULTS_FOUNDATION_STORAGE  // needs the Linux file store; see FileStoreOnly.swift

@testable import TypedDefaults

/// A write to a large suite changes the file where it must and copies the rest (see `PropertyListXML.Image`);
/// whatever happened to the file in between, it must hold exactly what writing the suite whole gives.
@Suite("Writes to large suites")
struct LargeSuiteWriteTests {
    static let seeded = Dictionary(uniqueKeysWithValues: (0..<2_000).map { ("bulk.\($0)", "value \($0) & <more>") })

    /// Checks that the file is the whole writer's output for what it holds, and that it holds `expected`.
    func expectFileIsWhole(_ suite: IsolatedSuite, holding expected: [String: PropertyListValue]) throws {
        let bytes = try Data(contentsOf: suite.fileURL)
        let values = try parsedSuite(bytes)
        #expect(values == expected)
        #expect(bytes == PropertyListXML.data(values), "the file is laid out as a whole write lays it out")
    }

    @Test("small writes, removals and a modify leave the file as writing the suite whole would")
    func smallWrites() throws {
        let suite = IsolatedSuite(fileContents: Self.seeded, writePolicy: .coalesced)
        var expected = Self.seeded.mapValues { PropertyListValue.string($0) }
        let adapter = suite.adapter
        for round in 0..<5 {
            adapter.launchCount = round
            adapter[key: Key<String?>("bulk.\(round * 7)")] = nil
            adapter[key: Key<String>("added.\(round)", default: "")] = "ä\r\(round)"
            try adapter.flush()
            expected["launchCount"] = .integer(Int64(round))
            expected["bulk.\(round * 7)"] = nil
            expected["added.\(round)"] = .string("ä\r\(round)")
            try expectFileIsWhole(suite, holding: expected)
        }
        try adapter.modify(\.launchCount) { $0 += 10 }
        expected["launchCount"] = .integer(14)
        try expectFileIsWhole(suite, holding: expected)
    }

    @Test("a flush changes the values in memory where it wrote, reading nothing; an earlier snapshot stays as it was")
    func flushChangesValuesInPlace() throws {
        let suite = IsolatedSuite(fileContents: Self.seeded, writePolicy: .coalesced)
        let store = try #require(suite.adapter.store as? FileStore)
        let seeded = Self.seeded.mapValues { PropertyListValue.string($0) }
        let before = store.snapshot()
        let reads = store.fileReadCount
        var expected = seeded
        for round in 0..<3 {
            suite.adapter[key: Key<String?>("bulk.\(round)")] = nil
            suite.adapter[key: Key<String>("bulk.\(round + 10)", default: "")] = "changed \(round)"
            suite.adapter[key: Key<String>("added.\(round)", default: "")] = "added \(round)"
            // Written as it is: no change, nothing to write for this key.
            suite.adapter[key: Key<String>("bulk.20", default: "")] = Self.seeded["bulk.20"]!
            try suite.adapter.flush()
            expected["bulk.\(round)"] = nil
            expected["bulk.\(round + 10)"] = .string("changed \(round)")
            expected["added.\(round)"] = .string("added \(round)")
            #expect(store.snapshot() == expected)
            #expect(store.value(forKey: "bulk.\(round)") == nil)
            #expect(store.value(forKey: "bulk.\(round + 10)") == .string("changed \(round)"))
            #expect(store.value(forKey: "added.\(round)") == .string("added \(round)"))
            try expectFileIsWhole(suite, holding: expected)
        }
        #expect(store.fileReadCount == reads, "each flush wrote over the file this process last wrote")
        #expect(before == seeded)
    }

    @Test("a write after another program replaced the file merges into what that program wrote")
    func writeAfterForeignRewrite() throws {
        let suite = IsolatedSuite(fileContents: Self.seeded, writePolicy: .coalesced)
        suite.adapter.launchCount = 1
        try suite.adapter.flush()
        // Another writer, without TypedDefaults' lock: one key changed, one removed, one added.
        var foreign = Self.seeded as [String: Any]
        foreign["launchCount"] = 1
        foreign["bulk.1"] = "changed elsewhere"
        foreign["bulk.2"] = nil
        foreign["elsewhere"] = 5
        try PropertyListSerialization.data(fromPropertyList: foreign, format: .xml, options: 0)
            .write(to: suite.fileURL)
        suite.adapter.launchCount = 2
        try suite.adapter.flush()
        var expected = Self.seeded.mapValues { PropertyListValue.string($0) }
        expected["launchCount"] = .integer(2)
        expected["bulk.1"] = .string("changed elsewhere")
        expected["bulk.2"] = nil
        expected["elsewhere"] = .integer(5)
        try expectFileIsWhole(suite, holding: expected)
    }

    @Test("removing everything, then writing again, gives the forms a whole write gives")
    func removeAllAndWriteAgain() throws {
        let suite = IsolatedSuite(fileContents: Self.seeded, writePolicy: .coalesced)
        suite.adapter.launchCount = 1
        try suite.adapter.flush()
        suite.adapter.removeAll()
        try suite.adapter.flush()
        try expectFileIsWhole(suite, holding: [:])
        suite.adapter.launchCount = 3
        try suite.adapter.flush()
        try expectFileIsWhole(suite, holding: ["launchCount": .integer(3)])
    }
}

#endif
