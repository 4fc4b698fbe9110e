import Foundation

/// One object of a binary property list (`bplist00`) as the file holds it: every object without references (a
/// string, number, date, data, Boolean, null, UID) as its encoded bytes, and arrays, sets and dictionaries as
/// the objects they refer to.
///
/// A suite's file that another program wrote in binary form goes through TypedDefaults' writes as these
/// objects, so that what `PropertyListValue` does not model, or models with less than the file holds, is written
/// back as it was: a date's fraction, a date of 1e300 seconds, a NaN's payload, a string XML cannot carry, a
/// number key, a null, a UID, and two keys Swift's `String` takes to be equal.
///
/// ```swift
/// let object = BinaryPropertyListObject(.date(Date(timeIntervalSinceReferenceDate: 0.5)))
/// object.value   // .date(2001-01-01 00:00:00.5), from the bytes 33 3F E0 00 00 00 00 00 00
/// ```
indirect enum BinaryPropertyListObject: Sendable {
    /// An object with no references, as its encoded bytes: its marker byte, any length, and its content.
    case leaf(ArraySlice<UInt8>)
    case array([BinaryPropertyListObject])
    /// A set (marker `0xC`) or an ordered set (`0xB`), kept as read.
    case set(marker: UInt8, [BinaryPropertyListObject])
    /// Keys and values in the file's order.
    case dictionary([BinaryPropertyListObject], [BinaryPropertyListObject])

    /// The encoded object of `value`.
    init(_ value: PropertyListValue) {
        switch value {
        case .string(let text):
            self = .leaf(Self.encoded(text)[...])
        case .bool(let flag):
            self = .leaf([flag ? 0x09 : 0x08])
        case .integer(let number):
            self = .leaf(Self.encoded(number)[...])
        case .unsignedInteger(let number):
            // Sixteen bytes, the upper eight zero: how Foundation writes an integer above Int64.max.
            self = .leaf(([0x14] + [UInt8](repeating: 0, count: 8) + Self.bigEndian(number, size: 8))[...])
        case .double(let number):
            self = .leaf(([0x23] + Self.bigEndian(number.bitPattern, size: 8))[...])
        case .date(let date):
            self = .leaf(([0x33] + Self.bigEndian(date.timeIntervalSinceReferenceDate.bitPattern, size: 8))[...])
        case .data(let data):
            self = .leaf((Self.marker(0x4, count: data.count) + data)[...])
        case .array(let items):
            self = .array(items.map(BinaryPropertyListObject.init))
        case .dictionary(let entries):
            let keys = entries.keys.sorted()
            self = .dictionary(
                keys.map { .leaf(Self.encoded($0)[...]) },
                keys.map { BinaryPropertyListObject(entries[$0]!) }
            )
        }
    }

    /// The value the object holds, or `nil` when `PropertyListValue` has no exact form for it (a null, a UID, a
    /// set, a key that is not a string, a string that is not valid Unicode, an integer beyond `UInt64`).
    ///
    /// Of two keys of a dictionary that Swift's `String` takes to be equal, the first gives the value, as the
    /// suite's own dictionary reads (see ``BinaryPropertyListImage/values``); the object itself keeps both.
    var value: PropertyListValue? {
        switch self {
        case .leaf(let bytes):
            return Self.value(ofLeaf: bytes)
        case .array(let items):
            var values: [PropertyListValue] = []
            values.reserveCapacity(items.count)
            for item in items {
                guard let value = item.value else { return nil }
                values.append(value)
            }
            return .array(values)
        case .set:
            return nil
        case .dictionary(let keys, let values):
            var entries: [String: PropertyListValue] = [:]
            entries.reserveCapacity(keys.count)
            for (key, item) in zip(keys, values) {
                guard let name = key.string, let value = item.value else { return nil }
                if entries[name] == nil { entries[name] = value }
            }
            return .dictionary(entries)
        }
    }

    /// The string a key or value holds, if it is a string of valid Unicode.
    var string: String? {
        guard case .leaf(let bytes) = self, let kind = bytes.first.map({ $0 >> 4 }), kind == 0x5 || kind == 0x6,
            case .string(let text)? = Self.value(ofLeaf: bytes)
        else { return nil }
        return text
    }

    // MARK: Leaves

    private static func value(ofLeaf bytes: ArraySlice<UInt8>) -> PropertyListValue? {
        guard let marker = bytes.first else { return nil }
        let content = bytes.dropFirst()
        switch marker {
        case 0x08: return .bool(false)
        case 0x09: return .bool(true)
        case 0x10, 0x11, 0x12:
            // One, two and four bytes are unsigned, as Foundation reads them.
            return .integer(Int64(number(content)))
        case 0x13:
            return .integer(Int64(bitPattern: number(content)))
        case 0x14:
            // Sixteen bytes: Foundation reads those whose upper eight are zero.
            guard content.prefix(8).allSatisfy({ $0 == 0 }) else { return nil }
            let low = number(content.dropFirst(8))
            return low > UInt64(Int64.max) ? .unsignedInteger(low) : .integer(Int64(low))
        case 0x22:
            return .double(Double(Float(bitPattern: UInt32(truncatingIfNeeded: number(content)))))
        case 0x23:
            return .double(Double(bitPattern: number(content)))
        case 0x33:
            return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: number(content))))
        default:
            break
        }
        guard let (count, start) = length(of: bytes) else { return nil }
        let body = bytes[start...]
        switch marker >> 4 {
        case 0x4:
            guard body.count == count else { return nil }
            return .data(Data(body))
        case 0x5:
            guard body.count == count, body.allSatisfy({ $0 < 0x80 }) else { return nil }
            return .string(String(decoding: body, as: UTF8.self))
        case 0x6:
            guard body.count / 2 == count, body.count % 2 == 0 else { return nil }
            let units = (0..<count).map { UInt16(body[start + 2 * $0]) << 8 | UInt16(body[start + 2 * $0 + 1]) }
            // Lone surrogates would read as U+FFFD: such a string is kept as its bytes.
            return validUTF16(units).map(PropertyListValue.string)
        default:
            return nil
        }
    }

    /// The text of `units`, unless they hold a lone surrogate.
    private static func validUTF16(_ units: [UInt16]) -> String? {
        var scalars = String.UnicodeScalarView()
        var decoder = UTF16()
        var iterator = units.makeIterator()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(scalar)
            case .emptyInput: return String(scalars)
            case .error: return nil
            }
        }
    }

    /// The big-endian number of at most eight bytes.
    private static func number(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The count of a string, data or container marker, and where its content starts.
    ///
    /// `nil` for a leaf that is none of those. The reader checked the lengths against the file when it read the
    /// leaf.
    static func length(of bytes: ArraySlice<UInt8>) -> (count: Int, start: Int)? {
        guard let marker = bytes.first else { return nil }
        let info = Int(marker & 0x0F)
        guard info == 0x0F else { return (info, bytes.startIndex + 1) }
        guard bytes.count >= 2 else { return nil }
        let integer = bytes[bytes.startIndex + 1]
        let size = 1 << Int(integer & 0x0F)
        guard integer >> 4 == 0x1, size <= 8, bytes.count >= 2 + size else { return nil }
        let start = bytes.startIndex + 2
        let count = number(bytes[start..<start + size])
        guard count <= UInt64(Int.max) else { return nil }
        return (Int(count), start + size)
    }

    private static func encoded(_ text: String) -> [UInt8] {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return marker(0x5, count: text.utf8.count) + text.utf8 }
        let units = Array(text.utf16)
        var bytes = marker(0x6, count: units.count)
        bytes.reserveCapacity(bytes.count + 2 * units.count)
        for unit in units { bytes += [UInt8(unit >> 8), UInt8(truncatingIfNeeded: unit)] }
        return bytes
    }

    /// The smallest form Foundation reads back as the same number: one, two or four unsigned bytes, else eight.
    private static func encoded(_ number: Int64) -> [UInt8] {
        switch number {
        case 0...0xFF: [0x10] + bigEndian(UInt64(number), size: 1)
        case 0...0xFFFF: [0x11] + bigEndian(UInt64(number), size: 2)
        case 0...0xFFFF_FFFF: [0x12] + bigEndian(UInt64(number), size: 4)
        default: [0x13] + bigEndian(UInt64(bitPattern: number), size: 8)
        }
    }

    /// A marker of `kind` for `count` elements: in its low four bits, or in an integer after it.
    static func marker(_ kind: UInt8, count: Int) -> [UInt8] {
        if count < 15 { return [kind << 4 | UInt8(count)] }
        let integer = encoded(Int64(count))
        return [kind << 4 | 0x0F] + integer
    }

    static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (UInt64($0) * 8)) }
    }
}
