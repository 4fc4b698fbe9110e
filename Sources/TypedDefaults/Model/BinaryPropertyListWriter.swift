import Foundation

/// Writes binary property lists (`bplist00`), as Foundation and Python's `plistlib` read them.
///
/// A suite's file that another program wrote in binary form is written back in binary form: XML cannot carry
/// what such a file may hold (a date's fraction, a NaN's payload, control characters, a null or a UID), and a
/// file written in XML with those would lose them or no longer read. Objects are written as
/// ``BinaryPropertyListObject``s, so whatever the file held that TypedDefaults does not model goes back byte for
/// byte. Equal objects without references (keys, repeated strings and numbers) are written once, as Foundation
/// writes them.
///
/// ```swift
/// let bytes = BinaryPropertyListWriter.bytes(BinaryPropertyListObject(.dictionary(["a": .integer(1)])))
/// try PropertyListSerialization.propertyList(from: Data(bytes), format: nil)   // ["a": 1]
/// ```
enum BinaryPropertyListWriter {
    /// The bytes of a property list whose top object is `root`.
    static func bytes(_ root: BinaryPropertyListObject) -> [UInt8] {
        var table = ObjectTable()
        _ = table.add(root)
        let referenceSize = byteCount(UInt64(table.items.count))
        var output = Array("bplist00".utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(table.items.count)
        for item in table.items {
            offsets.append(output.count)
            switch item {
            case .leaf(let bytes):
                output.append(contentsOf: bytes)
            case .container(let marker, let count, let references):
                output.append(contentsOf: BinaryPropertyListObject.marker(marker >> 4, count: count))
                for reference in references {
                    output.append(
                        contentsOf: BinaryPropertyListObject.bigEndian(UInt64(reference), size: referenceSize)
                    )
                }
            }
        }
        let tableOffset = output.count
        let offsetSize = byteCount(UInt64(tableOffset))
        for offset in offsets {
            output.append(contentsOf: BinaryPropertyListObject.bigEndian(UInt64(offset), size: offsetSize))
        }
        // The trailer: six unused bytes, the two sizes, the object count, the top object and the table's offset.
        output.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)])
        output.append(contentsOf: BinaryPropertyListObject.bigEndian(UInt64(table.items.count), size: 8))
        output.append(contentsOf: BinaryPropertyListObject.bigEndian(0, size: 8))
        output.append(contentsOf: BinaryPropertyListObject.bigEndian(UInt64(tableOffset), size: 8))
        return output
    }

    /// The fewest bytes (1, 2, 4 or 8) that hold every number below `limit`.
    private static func byteCount(_ limit: UInt64) -> Int {
        switch limit {
        case 0...0x100: 1
        case 0...0x1_0000: 2
        case 0...0x1_0000_0000: 4
        default: 8
        }
    }
}

/// The objects of a property list in the order they are written, each container's references by index.
private struct ObjectTable {
    enum Item {
        case leaf(ArraySlice<UInt8>)
        /// The marker's kind in its upper four bits, the element count, and the references (for a dictionary,
        /// the keys' then the values').
        case container(marker: UInt8, count: Int, references: [Int])
    }

    var items: [Item] = []
    /// Where each leaf already written is, so that an equal one refers to it.
    var leaves: [ArraySlice<UInt8>: Int] = [:]

    /// Adds `object` and everything it refers to; returns its index.
    mutating func add(_ object: BinaryPropertyListObject) -> Int {
        switch object {
        case .leaf(let bytes):
            if let index = leaves[bytes] { return index }
            items.append(.leaf(bytes))
            leaves[bytes] = items.count - 1
            return items.count - 1
        case .array(let elements):
            return addContainer(0xA0, count: elements.count, elements)
        case .set(let marker, let elements):
            return addContainer(marker, count: elements.count, elements)
        case .dictionary(let keys, let values):
            return addContainer(0xD0, count: keys.count, keys + values)
        }
    }

    private mutating func addContainer(_ marker: UInt8, count: Int, _ elements: [BinaryPropertyListObject]) -> Int {
        let index = items.count
        // Its place is taken first: the top object is the first written.
        items.append(.container(marker: marker, count: count, references: []))
        let references = elements.map { add($0) }
        items[index] = .container(marker: marker, count: count, references: references)
        return index
    }
}
