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

    /// What reading `bytes` by what changed since `image` (holding `values`) gives, if it can.
    static func reading(
        _ bytes: [UInt8],
        after image: PropertyListXML.Image,
        holding values: [String: PropertyListValue]
    ) -> (values: [String: PropertyListValue], image: PropertyListXML.Image)? {
        bytes.withUnsafeBufferPointer { image.reading($0, values: values) }
    }

    /// What reading `bytes` whole gives: the library's reader, else Foundation's.
    static func wholeReading(_ bytes: [UInt8]) -> [String: PropertyListValue]? {
        guard case .dictionary(let values)? = PropertyListValue(propertyListData: Data(bytes)) else { return nil }
        return values
    }

    @Test("a later version read by what changed gives what reading it whole gives, and an image that edits right")
    func readingEdits() throws {
        var fastReads = 0
        for seed: UInt64 in 1...40 {
            var random = SeededGenerator(seed: seed)
            var values = PropertyListReaderTests.storable(seed: seed, count: 1 + random.below(30))
            var image = PropertyListXML.Image(values)
            for _ in 0..<10 {
                // Another writer's edit: written whole, as another process's first write is.
                var edited = values
                for _ in 0..<(1 + random.below(4)) {
                    let key =
                        random.chance(30)
                        ? random.pick(Self.awkwardKeys)
                        : random.chance(50) ? random.pick(Array(edited.keys)) : "new.\(random.next())"
                    edited[key] = random.chance(25) ? nil : .string(String(repeating: "x", count: random.below(40)))
                }
                guard !edited.isEmpty else { continue }
                let bytes = PropertyListXML.Image(edited).bytes
                let read = try #require(Self.reading(bytes, after: image, holding: values), "seed \(seed)")
                fastReads += 1
                #expect(read.values.isIdentical(to: edited), "seed \(seed)")
                #expect(read.image.bytes == bytes)
                // The image read so serves the next write as one the writer made.
                let next: [String: PropertyListValue?] = [
                    "after.read": .integer(1), random.pick(Array(edited.keys)): nil,
                ]
                var expected = edited
                for (key, value) in next { expected[key] = value }
                if !expected.isEmpty {
                    #expect(read.image.updating(next).bytes == PropertyListXML.Image(expected).bytes, "seed \(seed)")
                }
                values = read.values
                image = read.image
            }
        }
        #expect(fastReads > 300)
    }

    @Test("damaged, reordered and foreign versions read as reading them whole does, or not at all")
    func readingHostileVersions() throws {
        var fastReads = 0
        var refused = 0
        for seed: UInt64 in 1...30 {
            var random = SeededGenerator(seed: seed)
            let values = PropertyListReaderTests.storable(seed: seed, count: 2 + random.below(20))
            let image = PropertyListXML.Image(values)
            var candidates: [[UInt8]] = []
            // Bytes changed, removed or added anywhere, as a torn or tampered file has them.
            for _ in 0..<40 {
                var bytes = image.bytes
                let at = random.below(bytes.count)
                switch random.below(3) {
                case 0: bytes[at] = random.pick(Array("<>/&;\n\t ak0\u{7F}".utf8) + [0xC3, 0xFF])
                case 1: bytes.removeSubrange(at..<min(bytes.count, at + 1 + random.below(20)))
                default:
                    bytes.insert(
                        contentsOf: random.pick(["<key>k</key><true/>", "\t<key>0</key>\n", "<!-- -->", "&amp;"]).utf8,
                        at: at
                    )
                }
                candidates.append(bytes)
            }
            // The same values as Foundation lays them out, and a key that is already there added again.
            candidates.append(Array(try PropertyListReaderTests.foundationXML(values)))
            let duplicate = "\t<key>\(values.keys.sorted().last!)</key>\n\t<true/>\n"
            var repeated = image.bytes
            repeated.insert(contentsOf: duplicate.utf8, at: repeated.count - "</dict>\n</plist>\n".utf8.count)
            candidates.append(repeated)
            for bytes in candidates {
                guard let read = Self.reading(bytes, after: image, holding: values) else {
                    refused += 1
                    continue
                }
                fastReads += 1
                let whole = Self.wholeReading(bytes)
                #expect(whole.map(read.values.isIdentical(to:)) == true, "seed \(seed)")
                #expect(read.image.bytes == bytes)
            }
        }
        // Both ways are taken: edits inside entries are read by what changed, the rest whole.
        #expect(fastReads > 100)
        #expect(refused > 100)
    }
}
