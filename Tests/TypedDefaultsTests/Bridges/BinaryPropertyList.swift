import Foundation

/// A binary property list written byte by byte, UIDs included: keyed archives refer to their objects by UID,
/// and Foundation on Linux has no public way to make one, so fixtures of archives that Apple's archiver wrote
/// (or that someone forged) are built with this.
indirect enum BinaryPropertyList {
    case string(String)
    case integer(Int64)
    case real(Double)
    case bool(Bool)
    case data(Data)
    case date(Date)
    case uid(UInt32)
    case array([BinaryPropertyList])
    /// A kind Foundation never writes, but bytes can spell.
    case set([BinaryPropertyList])
    /// Keys in the order given, as the archiver writes them.
    case dictionary([(String, BinaryPropertyList)])
    /// A null, which Foundation reads as `NSNull` and property lists written by Foundation never contain.
    case null
    /// A dictionary whose keys may be any object (a number, say), in the order given.
    case objectKeys([(BinaryPropertyList, BinaryPropertyList)])

    /// The `bplist00` bytes: a header, the objects, a table of their offsets and a trailer (two-byte object
    /// references, four-byte offsets).
    var encoded: Data {
        var objects: [[UInt8]] = []
        _ = Self.add(self, to: &objects)
        var output = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(output.count)
            output += object
        }
        let tableOffset = output.count
        for offset in offsets { output += Self.bigEndian(UInt64(offset), bytes: 4) }
        output += [0, 0, 0, 0, 0, 0, 4, 2]
        output += Self.bigEndian(UInt64(objects.count), bytes: 8)
        output += Self.bigEndian(0, bytes: 8)
        output += Self.bigEndian(UInt64(tableOffset), bytes: 8)
        return Data(output)
    }

    /// Appends `value` (and, after it, everything it refers to); returns its index.
    private static func add(_ value: BinaryPropertyList, to objects: inout [[UInt8]]) -> Int {
        let index = objects.count
        objects.append([])
        var bytes: [UInt8]
        switch value {
        case .string(let text):
            if text.utf8.allSatisfy({ $0 < 0x80 }) {
                bytes = marker(0x5, count: text.utf8.count) + Array(text.utf8)
            } else {
                let units = Array(text.utf16)
                bytes = marker(0x6, count: units.count) + units.flatMap { bigEndian(UInt64($0), bytes: 2) }
            }
        case .integer(let number):
            bytes = [0x13] + bigEndian(UInt64(bitPattern: number), bytes: 8)
        case .real(let number):
            bytes = [0x23] + bigEndian(number.bitPattern, bytes: 8)
        case .bool(let flag):
            bytes = [flag ? 0x09 : 0x08]
        case .data(let data):
            bytes = marker(0x4, count: data.count) + Array(data)
        case .date(let date):
            bytes = [0x33] + bigEndian(date.timeIntervalSinceReferenceDate.bitPattern, bytes: 8)
        case .uid(let number):
            bytes = [0x83] + bigEndian(UInt64(number), bytes: 4)
        case .array(let items):
            let references = items.map { add($0, to: &objects) }
            bytes = marker(0xA, count: items.count) + references.flatMap { bigEndian(UInt64($0), bytes: 2) }
        case .set(let items):
            let references = items.map { add($0, to: &objects) }
            bytes = marker(0xC, count: items.count) + references.flatMap { bigEndian(UInt64($0), bytes: 2) }
        case .dictionary(let entries):
            let keys = entries.map { add(.string($0.0), to: &objects) }
            let values = entries.map { add($0.1, to: &objects) }
            bytes = marker(0xD, count: entries.count) + (keys + values).flatMap { bigEndian(UInt64($0), bytes: 2) }
        case .null:
            bytes = [0x00]
        case .objectKeys(let entries):
            let keys = entries.map { add($0.0, to: &objects) }
            let values = entries.map { add($0.1, to: &objects) }
            bytes = marker(0xD, count: entries.count) + (keys + values).flatMap { bigEndian(UInt64($0), bytes: 2) }
        }
        objects[index] = bytes
        return index
    }

    private static func marker(_ type: UInt8, count: Int) -> [UInt8] {
        if count < 15 { return [type << 4 | UInt8(count)] }
        return [type << 4 | 0xF, 0x13] + bigEndian(UInt64(count), bytes: 8)
    }

    private static func bigEndian(_ value: UInt64, bytes: Int) -> [UInt8] {
        (0..<bytes).reversed().map { UInt8(truncatingIfNeeded: value >> (UInt64($0) * 8)) }
    }
}

/// Keyed archives of `NSURL` laid out as Apple's `NSKeyedArchiver` writes them: `$archiver`, `$version` 100000,
/// `$top` naming the root by UID, and `$objects` starting with `"$null"`, then the URL object (`NS.base`,
/// `NS.relative`, `$class`), its strings, and the class description shared by every `NSURL` in the archive.
enum URLArchiveFixture {
    static let urlClass = BinaryPropertyList.dictionary([
        ("$classes", .array([.string("NSURL"), .string("NSObject")])),
        ("$classname", .string("NSURL")),
    ])

    /// An archived URL with no base: what `set(_: URL?, forKey:)` stores for a URL such as `https://…`.
    static func url(_ relative: String) -> Data {
        archive(objects: [
            .string("$null"),
            .dictionary([("NS.base", .uid(0)), ("NS.relative", .uid(2)), ("$class", .uid(3))]),
            .string(relative),
            urlClass,
        ])
    }

    /// An archived URL relative to a base URL, which the archive holds as a second `NSURL` object.
    static func url(_ relative: String, base: String) -> Data {
        archive(objects: [
            .string("$null"),
            .dictionary([("NS.base", .uid(2)), ("NS.relative", .uid(4)), ("$class", .uid(5))]),
            .dictionary([("NS.base", .uid(0)), ("NS.relative", .uid(3)), ("$class", .uid(5))]),
            .string(base),
            .string(relative),
            urlClass,
        ])
    }

    /// A keyed archive of `objects`, the root being `objects[root]`.
    static func archive(
        objects: [BinaryPropertyList],
        root: UInt32 = 1,
        archiver: String = "NSKeyedArchiver"
    ) -> Data {
        BinaryPropertyList.dictionary([
            ("$version", .integer(100_000)),
            ("$archiver", .string(archiver)),
            ("$top", .dictionary([("root", .uid(root))])),
            ("$objects", .array(objects)),
        ])
        .encoded
    }
}
