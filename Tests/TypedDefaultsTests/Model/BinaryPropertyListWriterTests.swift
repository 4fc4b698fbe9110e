import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// The binary property-list writer and the reader of whole binary property lists that suite files other
/// programs wrote in binary form go through: every value reads back bit for bit, by TypedDefaults and by
/// Foundation, and hostile bytes give an error, never a crash or a read outside them.
@Suite("Binary property lists: writer and whole-file reader")
struct BinaryPropertyListWriterTests {
    /// Every case of `PropertyListValue`, at the edges of each encoding's sizes.
    static let samples: [(String, PropertyListValue)] = [
        ("empty string", .string("")),
        ("ASCII", .string("plain")),
        (
            "ASCII of 15 characters, the first with a length after the marker",
            .string(String(repeating: "a", count: 15))
        ),
        ("UTF-16", .string("caf\u{E9} 🙂 日本語")),
        ("decomposed", .string("cafe\u{301}")),
        ("control characters XML cannot carry", .string("\u{1B}[31m\u{01}\u{00}\u{FFFE}")),
        ("false", .bool(false)),
        ("true", .bool(true)),
        ("zero", .integer(0)),
        ("one byte", .integer(255)),
        ("two bytes", .integer(256)),
        ("two bytes, largest", .integer(65_535)),
        ("four bytes", .integer(65_536)),
        ("four bytes, largest", .integer(0xFFFF_FFFF)),
        ("eight bytes", .integer(0x1_0000_0000)),
        ("minus one", .integer(-1)),
        ("Int64.min", .integer(.min)),
        ("Int64.max", .integer(.max)),
        ("above Int64.max", .unsignedInteger(UInt64(Int64.max) + 1)),
        ("UInt64.max", .unsignedInteger(.max)),
        ("a fraction", .double(0.1)),
        ("negative zero", .double(-0.0)),
        ("infinity", .double(-.infinity)),
        ("NaN", .double(.nan)),
        ("a NaN's payload", .double(Double(bitPattern: 0x7ff0_0000_0000_0001))),
        ("a negative NaN", .double(-.nan)),
        ("empty data", .data(Data())),
        ("data", .data(Data([0, 1, 0xFF]))),
        ("data of 300 bytes", .data(Data((0..<300).map { UInt8(truncatingIfNeeded: $0) }))),
        ("a date's fraction", .date(Date(timeIntervalSinceReferenceDate: 1.75))),
        ("a date of 1e300 seconds", .date(Date(timeIntervalSinceReferenceDate: 1e300))),
        ("a NaN date", .date(Date(timeIntervalSinceReferenceDate: .nan))),
        ("empty array", .array([])),
        ("nested", .array([.array([.integer(1), .string("x")]), .dictionary(["k": .bool(true)])])),
        ("empty dictionary", .dictionary([:])),
        (
            "repeated objects, written once",
            .dictionary(["a": .string("same"), "b": .string("same"), "same": .array([.string("same")])])
        ),
        (
            "300 distinct objects: two-byte references",
            .array((0..<300).map { .integer(Int64($0) * 1_000) })
        ),
        (
            "70,000 distinct objects: four-byte references and offsets",
            .dictionary(Dictionary(uniqueKeysWithValues: (0..<35_000).map { ("key \($0)", .integer(Int64($0))) }))
        ),
    ]

    /// The samples' names, as the tests' arguments: describing a date of 1e300 seconds crashes Foundation.
    static let names = samples.map(\.0)

    static func sample(_ name: String) -> PropertyListValue { samples.first { $0.0 == name }!.1 }

    static func bytes(_ value: PropertyListValue) -> Data {
        Data(BinaryPropertyListWriter.bytes(BinaryPropertyListObject(value)))
    }

    @Test("every value reads back bit for bit through TypedDefaults' reader", arguments: names)
    func roundTrip(name: String) throws {
        let value = Self.sample(name)
        let tree = try BinaryPropertyListReader(Self.bytes(value)).tree(maximumNesting: 512)
        #expect(tree.value.isIdentical(to: value), "\(name)")
    }

    @Test("every value reads back through Foundation's reader, bit for bit but for a NaN's", arguments: names)
    func foundationReadsIt(name: String) throws {
        let value = Self.sample(name)
        let object = try PropertyListSerialization.propertyList(from: Self.bytes(value), format: nil)
        let read = try #require(PropertyListValue(foundationObject: object), "\(name)")
        if case .double(let number) = value, number.isNaN {
            // Measured with Swift 6.3.1 on Linux: Foundation reads every NaN of a binary <real> as plain NaN
            // (TypedDefaults' reader keeps its bits, above).
            #expect(read.isIdentical(to: .double(.nan)), "\(name)")
        } else {
            #expect(read.isIdentical(to: value), "\(name)")
        }
    }

    @Test("an entry the file holds and PropertyListValue does not model is written back as it was")
    func unmodelledEntriesKept() throws {
        let original =
            BinaryPropertyList.objectKeys([
                (.integer(7), .string("seven")),
                (.string("null"), .null),
                (.string("uid"), .uid(9)),
                (.string("cafe\u{301}"), .string("decomposed")),
                (.string("caf\u{E9}"), .string("composed")),
                (.string("set"), .set([.integer(1)])),
            ])
            .encoded
        let tree = try BinaryPropertyListReader(original).tree(maximumNesting: 512)
        let image = try #require(BinaryPropertyListImage(tree, bytes: Array(original)))
        // Reads find the entries PropertyListValue models; of two spellings, the first in the file by its key,
        // the other by a name of its own.
        #expect(image.values.count == 2)
        #expect(image.values["cafe\u{301}"] == .string("decomposed"))
        #expect(image.values[KeySpelling.name(of: "caf\u{E9}")] != nil)
        #expect(image.holdsSpellings)
        let next = image.updating([("caf\u{E9}", .string("new")), ("added", .integer(1))])
        let written = try BinaryPropertyListReader(Data(next.bytes)).tree(maximumNesting: 512)
        guard case .dictionary(let oldKeys, let oldObjects) = tree, case .dictionary(let keys, let objects) = written
        else {
            Issue.record("the root is no longer a dictionary")
            return
        }
        #expect(keys.count == 7)
        // Every entry but the one written is there, byte for byte: the number key, the null, the UID, the set and
        // the other spelling.
        for (key, object) in zip(oldKeys, oldObjects) where key.string?.utf8.elementsEqual("caf\u{E9}".utf8) != true {
            #expect(zip(keys, objects).contains { same($0.0, key) && same($0.1, object) }, "\(key)")
        }
        let composed = zip(keys, objects).first { $0.0.string?.utf8.elementsEqual("caf\u{E9}".utf8) == true }
        #expect(composed?.1.value == .string("new"))
        // Removing one spelling leaves the other, which reads then find.
        let reread = try #require(BinaryPropertyListImage(written, bytes: next.bytes))
        #expect(reread.updating([("cafe\u{301}", nil)]).values["caf\u{E9}"] == .string("new"))
    }

    @Test("a reference cycle, a tree of billions and mutated bytes give an error, never a crash")
    func hostileBytes() throws {
        func bigEndian(_ value: Int) -> [UInt8] {
            (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        }
        func plist(_ objects: [[UInt8]]) -> Data {
            var bytes = Array("bplist00".utf8)
            var offsets: [UInt8] = []
            for object in objects {
                offsets += [UInt8(bytes.count >> 8), UInt8(truncatingIfNeeded: bytes.count)]
                bytes += object
            }
            let table = bytes.count
            return Data(
                bytes + offsets + [0, 0, 0, 0, 0, 0, 2, 1] + bigEndian(objects.count) + bigEndian(0) + bigEndian(table)
            )
        }
        // An array that holds itself.
        #expect(throws: (any Error).self) {
            try BinaryPropertyListReader(plist([[0xA1, 0x00]])).tree(maximumNesting: 512)
        }
        // Forty arrays, each holding the next one twice: 2^40 nodes in a file of a few hundred bytes.
        let shared = plist((0..<40).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] } + [[0x10, 0x01]])
        #expect(throws: (any Error).self) { try BinaryPropertyListReader(shared).tree(maximumNesting: 512) }
        // Bytes of every kind, mutated: each reads as an error or as objects the writer writes again.
        var random = SeededGenerator(seed: 21)
        let valid = Array(
            Self.bytes(.dictionary(Dictionary(uniqueKeysWithValues: Self.samples.prefix(36).map { ($0.0, $0.1) })))
        )
        for _ in 0..<2_000 {
            var bytes = valid
            for _ in 0..<(1 + random.below(4)) { bytes[random.below(bytes.count)] = UInt8(random.below(256)) }
            if random.chance(30) { bytes.removeLast(random.below(bytes.count)) }
            if let tree = try? BinaryPropertyListReader(Data(bytes)).tree(maximumNesting: 512) {
                let written = BinaryPropertyListWriter.bytes(tree)
                let reread = try BinaryPropertyListReader(Data(written)).tree(maximumNesting: 512)
                #expect(reread.value.isIdentical(to: tree.value))
            }
        }
    }
}

/// Whether two objects are the same bytes and structure.
private func same(_ lhs: BinaryPropertyListObject, _ rhs: BinaryPropertyListObject) -> Bool {
    switch (lhs, rhs) {
    case (.leaf(let a), .leaf(let b)): a.elementsEqual(b)
    case (.array(let a), .array(let b)): a.count == b.count && zip(a, b).allSatisfy(same)
    case (.set(let m, let a), .set(let n, let b)): m == n && a.count == b.count && zip(a, b).allSatisfy(same)
    case (.dictionary(let k, let v), .dictionary(let l, let w)):
        k.count == l.count && zip(k, l).allSatisfy(same) && zip(v, w).allSatisfy(same)
    default: false
    }
}
