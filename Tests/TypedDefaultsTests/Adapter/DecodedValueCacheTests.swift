import Foundation
import Testing

@testable import TypedDefaults

/// Reads keep what costly bridges decoded; these tests try to make a kept value outlive its stored value.
@Suite("Decoded-value cache")
struct DecodedValueCacheTests {
    @Test("a value changed behind the adapter's back is decoded again, even when it is == to the old one")
    func changedBehindTheAdaptersBack() throws {
        let store = InMemoryStore(["list": .array([.double(0.0)]), "name": .string("caf\u{E9}")])
        let defaults = DefaultsAdapter(store: store, keyStore: DefaultsKeys())
        let list = Key<[Double]>("list", default: [])
        let name = Key<[String: String]?>("name")
        #expect(defaults[key: list] == [0.0])
        #expect(defaults[key: list] == [0.0], "read again, from the kept value")

        // Straight to the store, so the adapter hears nothing: only comparing the stored value can tell.
        #expect(try store.apply(DefaultsBatch(writes: ["list": .array([.double(-0.0)])])))
        #expect(defaults[key: list].first?.sign == .minus, "-0.0 == 0.0, but it is another stored value")

        _ = defaults[key: name]
        #expect(try store.apply(DefaultsBatch(writes: ["list": .array([.double(1.5)])])))
        #expect(defaults[key: list] == [1.5])
    }

    @Test(
        "a kept value follows the file when another program replaces it, and survives a reload that left it alone",
        .needsFileStore
    )
    func otherPrograms() throws {
        let suite = IsolatedSuite()
        let files = Key<[URL]>("recentFiles", default: [])
        suite.adapter[key: files] = [URL(fileURLWithPath: "/a")]
        #expect(suite.adapter[key: files] == [URL(fileURLWithPath: "/a")])

        // Another program rewrites the file with the same list and one more key.
        try replaceFile(of: suite, with: ["recentFiles": ["file:///a"], "unrelated": 1])
        #expect(eventually { suite.adapter[key: Key<Int>("unrelated", default: 0)] == 1 })
        #expect(suite.adapter[key: files] == [URL(fileURLWithPath: "/a")])

        try replaceFile(of: suite, with: ["recentFiles": ["file:///b"], "unrelated": 1])
        #expect(eventually { suite.adapter[key: files] == [URL(fileURLWithPath: "/b")] })
    }

    /// Writes `values` as the suite's whole file and renames it into place, as another program would.
    private func replaceFile(of suite: IsolatedSuite, with values: [String: Any]) throws {
        let data = try PropertyListSerialization.data(fromPropertyList: values, format: .xml, options: 0)
        let temporary = suite.directory.url.appendingPathComponent("replacement.plist")
        try data.write(to: temporary)
        #expect(rename(temporary.path, suite.fileURL.path) == 0)
    }
}
