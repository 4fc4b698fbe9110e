import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// A write of a few keys changes a copy of the file's bytes instead of writing every value again; the file must
/// come out byte for byte as writing the changed values whole would make it.
@Suite("Property-list XML image")
struct PropertyListXMLImageTests {
    /// Keys that sort unlike their bytes, or that Swift takes to be equal though their bytes differ (the Kelvin
    /// sign is canonically "K"; "é" precomposed and decomposed).
    static let awkwardKeys = ["K", "\u{212A}", "é", "e\u{301}", "", "a", "Z", "\r", "&<>", "🙂", "\u{FFFD}", "aa"]

    @Test("random edits of random suites give the bytes of writing the edited values whole")
    func randomEdits() {
        for seed: UInt64 in 1...40 {
            var random = SeededGenerator(seed: seed)
            var values = PropertyListReaderTests.storable(seed: seed, count: random.below(30))
            var image = PropertyListXML.Image(values)
            for _ in 0..<12 {
                var changes: [String: PropertyListValue?] = [:]
                for _ in 0..<(1 + random.below(6)) {
                    let key: String =
                        random.chance(40)
                        ? random.pick(Self.awkwardKeys)
                        : random.chance(50) && !values.isEmpty
                            ? random.pick(Array(values.keys)) : "new.\(random.next())"
                    changes[key] = random.chance(30) ? .some(nil) : .some(.integer(Int64(random.below(1000))))
                }
                for (key, value) in changes { values[key] = value }
                image = image.updating(changes)
                #expect(image.bytes == PropertyListXML.Image(values).bytes, "seed \(seed)")
            }
        }
    }

    @Test("an edit that empties the suite, and one that fills an empty suite, give the whole forms")
    func emptyAndBack() throws {
        let empty = PropertyListXML.Image([:])
        let one = empty.updating(["a": .string("x")])
        #expect(one.bytes == PropertyListXML.Image(["a": .string("x")]).bytes)
        let emptied = one.updating(["a": PropertyListValue?.none, "missing": PropertyListValue?.none])
        #expect(emptied.bytes == empty.bytes)
        #expect(String(decoding: emptied.bytes, as: UTF8.self).contains("<dict/>"))
        #expect(try parsedSuite(Data(emptied.bytes)).isEmpty)
    }

    @Test("a key Swift takes to be an existing one replaces it, keeping the spelling the file has")
    func canonicallyEqualKeys() throws {
        let image = PropertyListXML.Image(["\u{212A}": .integer(1), "e\u{301}": .integer(2)])
        var values: [String: PropertyListValue] = ["\u{212A}": .integer(1), "e\u{301}": .integer(2)]
        let changes: [String: PropertyListValue?] = ["K": .integer(3), "é": nil]
        for (key, value) in changes { values[key] = value }
        let updated = image.updating(changes)
        #expect(updated.bytes == PropertyListXML.Image(values).bytes)
        #expect(try parsedSuite(Data(updated.bytes)) == ["\u{212A}": .integer(3)])
    }
}
