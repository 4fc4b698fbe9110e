import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// A struct that is both `Codable` and a collection: adopting the protocol picks the array form.
struct CodableBag: Collection, Codable, Equatable, DefaultsCollectionSerializable {
    var items: [Int]
    init(_ elements: [Int]) { items = elements }
    var startIndex: Int { items.startIndex }
    var endIndex: Int { items.endIndex }
    subscript(position: Int) -> Int { items[position] }
    func index(after index: Int) -> Int { items.index(after: index) }
}

/// An option set: stored by raw value, with no protocol beyond `DefaultsSerializable`.
struct Shipping: OptionSet, DefaultsSerializable {
    let rawValue: Int
    static let express = Shipping(rawValue: 1)
    static let gift = Shipping(rawValue: 2)
}

/// Custom collections and set algebras need one conformance, no bridge, and store an array of elements.
@Suite("Collection and set-algebra protocols")
struct CollectionSerializableTests {
    @Test("a collection and a set algebra are stored as arrays, and read back in a new process")
    func storedForm() throws {
        let suite = IsolatedSuite()
        var tags = TagSet()
        tags.insert("swift")
        tags.insert("linux")
        suite.adapter[key: Key<Bag<String>?>("bag")] = Bag(["Hello", "World!"])
        suite.adapter[key: Key<TagSet?>("tags")] = tags

        let file = try suite.fileContents()
        #expect(file["bag"] as? [String] == ["Hello", "World!"])
        #expect(file["tags"] as? [String] == ["linux", "swift"])

        let run = try Helper.run(["print-migration-types", suite.name], configDirectory: suite.directory.url)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.settings["bag"] == "Hello,World!")
        #expect(run.settings["tags"] == "linux,swift")
    }

    @Test("arrays sindresorhus/Defaults stored read as they are; a repeated element is in the set once")
    func peerBytes() {
        let suite = IsolatedSuite(fileContents: ["bag": ["Hello", "World!"], "tags": ["a", "b", "a"]])
        #expect(suite.adapter[key: Key<Bag<String>?>("bag")] == Bag(["Hello", "World!"]))
        let tags = suite.adapter[key: Key<TagSet>("tags", default: TagSet())]
        #expect(tags.toArray() == ["a", "b"])
    }

    @Test("an element that is not one reads as the default with a diagnostic naming it")
    func mismatch() throws {
        let suite = IsolatedSuite(fileContents: ["bag": [1, "two"], "tags": "not an array"])
        #expect(suite.adapter[key: Key<Bag<Int>>("bag", default: Bag([7]))] == Bag([7]))
        #expect(suite.adapter[key: Key<TagSet>("tags", default: TagSet())] == TagSet())
        let diagnostic = try #require(suite.diagnostics.first { $0.key == "bag" })
        #expect(diagnostic.message.contains("element 1 is string \"two\""))
        #expect(suite.diagnostics.contains { $0.key == "tags" && $0.kind == .storedValueMismatch })
    }

    @Test("a collection that is also Codable is stored as an array, not JSON")
    func codableCollection() throws {
        let suite = IsolatedSuite()
        suite.adapter[key: Key<CodableBag>("numbers", default: CodableBag([]))] = CodableBag([3, 1, 2])
        #expect(try suite.fileContents()["numbers"] as? [Int] == [3, 1, 2])
        #expect(suite.adapter[key: Key<CodableBag>("numbers", default: CodableBag([]))] == CodableBag([3, 1, 2]))
    }

    @Test("an option set needs no protocol of its own: it is stored by raw value")
    func optionSet() throws {
        let suite = IsolatedSuite()
        suite.adapter[key: Key<Shipping>("shipping", default: [])] = [.express, .gift]
        #expect(try suite.fileContents()["shipping"] as? Int == 3)
        #expect(suite.adapter[key: Key<Shipping>("shipping", default: [])] == [.express, .gift])
    }

    @Test("an element with no stored form is refused with a typed error; the old value stays")
    func refusedElement() throws {
        let suite = IsolatedSuite()
        let key = Key<Bag<Int?>?>("bag")
        try suite.adapter.set(Bag([1, 2]), for: key)
        #expect(throws: DefaultsError.self) { try suite.adapter.set(Bag([1, nil]), for: key) }
        #expect(try suite.fileContents()["bag"] as? [Int] == [1, 2])
    }
}
