import Foundation

/// A binary property list (`bplist00`), read one object at a time by its index.
///
/// Every offset, count and reference is checked against the bytes before it is used, so damaged or forged
/// bytes give an error, never a read outside them; a count can never exceed the bytes it would take, so
/// nothing large is allocated on a forged count. Only the kinds a keyed archive's structure needs are
/// decoded: strings, UIDs, arrays and dictionaries; every other object reads as `.other`.
struct BinaryPropertyListReader {
    enum Object {
        case string(String)
        case uid(Int)
        /// The objects' indices.
        case array([Int])
        /// The keys' and values' indices.
        case dictionary(keys: [Int], values: [Int])
        case other
    }

    private let bytes: [UInt8]
    private let offsetSize: Int
    private let referenceSize: Int
    private let objectCount: Int
    private let offsetTable: Int
    let topObject: Int

    init(_ data: Data) throws {
        bytes = [UInt8](data)
        let trailerLength = 32
        guard bytes.count >= 8 + trailerLength, bytes.starts(with: Array("bplist00".utf8)) else {
            throw DefaultsBridgeError("the data is not a binary property list, so not a keyed archive")
        }
        let trailer = bytes.count - trailerLength
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else { throw Self.damaged }
        objectCount = try Self.number(bytes, at: trailer + 8, size: 8, below: trailer)
        topObject = try Self.number(bytes, at: trailer + 16, size: 8, below: trailer)
        offsetTable = try Self.number(bytes, at: trailer + 24, size: 8, below: trailer)
        guard objectCount > 0, topObject < objectCount, offsetTable >= 8,
            objectCount <= (trailer - offsetTable) / offsetSize
        else { throw Self.damaged }
    }

    /// Why Foundation's property-list reader would stop the process on `data`, or `nil` if it would not.
    ///
    /// Measured on Linux with Swift 6.3.1: a binary property list holding a set (a kind property lists written
    /// by Foundation never contain, but bytes can spell) makes `PropertyListSerialization` dereference a bad
    /// pointer, whatever the set holds. Every object the reader could reach is listed in the offset table, so
    /// each is checked there. Text (XML) property lists have no sets, and are left to Foundation.
    ///
    /// Foundation reads any header `bplist0?` (and tries others), while this reader takes `bplist00` alone:
    /// whatever starts `bplist` and this reader refuses is reported too, since only this reader's checks can
    /// tell a set from what Foundation reads safely.
    static func foundationCrash(on data: Data) -> String? {
        #if canImport(Darwin)
        return nil
        #else
        guard data.starts(with: Array("bplist".utf8)) else { return nil }
        let reader: BinaryPropertyListReader
        do {
            reader = try BinaryPropertyListReader(data)
        } catch {
            guard data.starts(with: Array("bplist00".utf8)) else {
                let header = String(decoding: data.prefix(8).map { (32..<127).contains($0) ? $0 : 63 }, as: UTF8.self)
                return "its header says \(header), a binary property list version TypedDefaults does not read, "
                    + "and Foundation's reader on Linux can crash on one"
            }
            return String(describing: error)
        }
        for index in 0..<reader.objectCount {
            guard
                let start = try? number(
                    reader.bytes,
                    at: reader.offsetTable + index * reader.offsetSize,
                    size: reader.offsetSize,
                    below: reader.offsetTable
                )
            else { continue }
            if reader.bytes[start] >> 4 == 0xC {
                return "the binary property list holds a set, which Foundation on Linux cannot read without crashing"
            }
        }
        return nil
        #endif
    }

    private static let damaged = DefaultsBridgeError("the keyed archive's binary property list is damaged")

    /// The big-endian unsigned number of `size` bytes at `start`, which must be below `limit`.
    private static func number(_ bytes: [UInt8], at start: Int, size: Int, below limit: Int) throws -> Int {
        guard start >= 0, size <= 8, start <= bytes.count - size else { throw damaged }
        var value: UInt64 = 0
        for byte in bytes[start..<start + size] { value = value << 8 | UInt64(byte) }
        guard value < UInt64(limit) else { throw damaged }
        return Int(value)
    }

    /// The object at `index`.
    func object(at index: Int) throws -> Object {
        guard index >= 0, index < objectCount else { throw Self.damaged }
        let start = try Self.number(bytes, at: offsetTable + index * offsetSize, size: offsetSize, below: offsetTable)
        guard start >= 8 else { throw Self.damaged }
        let marker = bytes[start]
        let kind = marker >> 4
        let info = Int(marker & 0x0F)
        switch kind {
        case 0x5, 0x6:
            let (count, first) = try length(info, after: start)
            let width = kind == 0x5 ? 1 : 2
            guard count <= (offsetTable - first) / width else { throw Self.damaged }
            let content = bytes[first..<first + count * width]
            if kind == 0x5 {
                guard content.allSatisfy({ $0 < 0x80 }) else { throw Self.damaged }
                return .string(String(decoding: content, as: UTF8.self))
            }
            let units = stride(from: first, to: first + count * 2, by: 2)
                .map {
                    UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1])
                }
            return .string(String(decoding: units, as: UTF16.self))
        case 0x8:
            return .uid(try Self.number(bytes, at: start + 1, size: info + 1, below: Int.max))
        case 0xA:
            let (count, first) = try length(info, after: start)
            return .array(try references(count, from: first))
        case 0xD:
            let (count, first) = try length(info, after: start)
            guard count <= (offsetTable - first) / (2 * referenceSize) else { throw Self.damaged }
            let keys = try references(count, from: first)
            let values = try references(count, from: first + count * referenceSize)
            return .dictionary(keys: keys, values: values)
        default:
            return .other
        }
    }

    /// The whole property list, from its top object, as ``BinaryPropertyListObject``s.
    ///
    /// Arrays, sets and dictionaries nest at most `maximumNesting` levels (a reference cycle would nest
    /// forever). An object referred to from several places is decoded at each, so forged bytes could make a few
    /// objects stand for a tree of billions: the tree may have no more nodes than the file has bytes, for
    /// every reference takes at least a byte, and a tree larger than that is refused as damaged.
    func tree(maximumNesting: Int) throws -> BinaryPropertyListObject {
        var budget = bytes.count
        return try tree(at: topObject, depth: 1, maximumNesting: maximumNesting, budget: &budget)
    }

    private func tree(
        at index: Int,
        depth: Int,
        maximumNesting: Int,
        budget: inout Int
    ) throws -> BinaryPropertyListObject {
        budget -= 1
        guard budget >= 0, index >= 0, index < objectCount else { throw Self.damaged }
        let start = try Self.number(bytes, at: offsetTable + index * offsetSize, size: offsetSize, below: offsetTable)
        guard start >= 8 else { throw Self.damaged }
        let marker = bytes[start]
        let kind = marker >> 4
        let info = Int(marker & 0x0F)
        func children(_ references: [Int]) throws -> [BinaryPropertyListObject] {
            guard depth < maximumNesting else { throw Self.damaged }
            return try references.map {
                try tree(at: $0, depth: depth + 1, maximumNesting: maximumNesting, budget: &budget)
            }
        }
        switch kind {
        case 0xA:
            let (count, first) = try length(info, after: start)
            return .array(try children(try references(count, from: first)))
        case 0xB, 0xC:
            let (count, first) = try length(info, after: start)
            return .set(marker: marker & 0xF0, try children(try references(count, from: first)))
        case 0xD:
            let (count, first) = try length(info, after: start)
            guard count <= (offsetTable - first) / (2 * referenceSize) else { throw Self.damaged }
            let keys = try children(try references(count, from: first))
            let values = try children(try references(count, from: first + count * referenceSize))
            return .dictionary(keys, values)
        default:
            return .leaf(bytes[start..<(try leafEnd(marker, at: start))])
        }
    }

    /// Where the object without references at `start` ends, checked to lie before the offset table.
    private func leafEnd(_ marker: UInt8, at start: Int) throws -> Int {
        let info = Int(marker & 0x0F)
        let end: Int
        switch marker >> 4 {
        case 0x0:
            // Null, false, true and fill.
            guard [0x0, 0x8, 0x9, 0xF].contains(info) else { throw Self.damaged }
            end = start + 1
        case 0x1:
            guard info <= 4 else { throw Self.damaged }
            end = start + 1 + (1 << info)
        case 0x2:
            guard info == 2 || info == 3 else { throw Self.damaged }
            end = start + 1 + (1 << info)
        case 0x3:
            guard info == 3 else { throw Self.damaged }
            end = start + 9
        case 0x4, 0x5:
            let (count, first) = try length(info, after: start)
            guard count <= offsetTable - first else { throw Self.damaged }
            end = first + count
        case 0x6:
            let (count, first) = try length(info, after: start)
            guard count <= (offsetTable - first) / 2 else { throw Self.damaged }
            end = first + 2 * count
        case 0x8:
            end = start + 2 + info
        default:
            throw Self.damaged
        }
        guard end <= offsetTable else { throw Self.damaged }
        return end
    }

    /// The count in a marker's low four bits, or in the integer after it when those are all ones; and where the
    /// content begins.
    private func length(_ info: Int, after marker: Int) throws -> (count: Int, first: Int) {
        guard info == 0x0F else { return (info, marker + 1) }
        guard marker + 1 < offsetTable else { throw Self.damaged }
        let integer = bytes[marker + 1]
        guard integer >> 4 == 0x1, integer & 0x0F <= 3 else { throw Self.damaged }
        let size = 1 << Int(integer & 0x0F)
        let count = try Self.number(bytes, at: marker + 2, size: size, below: offsetTable)
        return (count, marker + 2 + size)
    }

    /// `count` object references starting at `first`, each checked to name an object.
    private func references(_ count: Int, from first: Int) throws -> [Int] {
        guard first <= offsetTable, count <= (offsetTable - first) / referenceSize else { throw Self.damaged }
        return try (0..<count)
            .map { item in
                try Self.number(bytes, at: first + item * referenceSize, size: referenceSize, below: objectCount)
            }
    }

    func string(at index: Int) throws -> String {
        guard case .string(let text) = try object(at: index) else { throw Self.damaged }
        return text
    }

    func uid(at index: Int) throws -> Int {
        guard case .uid(let value) = try object(at: index) else { throw Self.damaged }
        return value
    }

    func array(at index: Int) throws -> [Int] {
        guard case .array(let items) = try object(at: index) else { throw Self.damaged }
        return items
    }

    /// A dictionary with string keys: each key's value index.
    ///
    /// A key that is not a string is damage.
    func dictionary(at index: Int) throws -> [String: Int] {
        guard case .dictionary(let keys, let values) = try object(at: index) else { throw Self.damaged }
        var entries: [String: Int] = [:]
        for (key, value) in zip(keys, values) { entries[try string(at: key)] = value }
        return entries
    }
}
