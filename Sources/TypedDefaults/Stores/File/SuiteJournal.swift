// The library's own file store is Linux's; on Apple platforms values live in UserDefaults (see Package.swift).
#if !TYPED_DEFAULTS_FOUNDATION_STORAGE
import Foundation

/// The records of a suite's journal: the writes made since the property-list file was last rebuilt, in the
/// order every process made them.
///
/// The journal is the suite's lock file (`.<suite>.plist.lock`) past its first 16 bytes: a count of the
/// library's writes of the file, and a random salt for the records' hashes, made with the lock file. Each `set` appends one record with a single `write(2)` to a descriptor opened
/// with `O_APPEND`, so records never interleave, and a record that is in the file was made before every record
/// after it. A record is a mark (`TDJ1`), its payload's length (4 bytes), an FNV-1a hash of the payload (8
/// bytes), and the payload: a flag byte (bit 0: remove every value first), the number of writes (4 bytes), and
/// each write's key and value. Bytes that are no whole record (a write a full disk cut short, another program's)
/// fail the mark or the hash: reading skips to the next mark, and reports the damage.
///
/// ```swift
/// let bytes = SuiteJournal.record(removingAll: false, [("theme", .string("dark"))], salt: 7)
/// let read = SuiteJournal.read(bytes[...], salt: 7)   // ([.set("theme", .string("dark"))], bytes.count, false)
/// ```
package enum SuiteJournal {
    /// Where the first record starts: after the write count (8 bytes) and the salt of the records' hashes (8 bytes).
    static let headerSize = 16

    /// One write a record holds.
    package enum Write: Equatable, Sendable {
        /// Every value is removed.
        case removeAll
        /// The key is set to the value, or removed (`nil`); the key is its exact spelling.
        case set(String, PropertyListValue?)
    }

    /// What a run of records comes to: whether it removes every value first, and the last value it writes for
    /// each key.
    struct Net: Sendable {
        var removesAll = false
        var writes: [String: PropertyListValue?] = [:]

        init(removesAll: Bool = false, writes: [String: PropertyListValue?] = [:]) {
            self.removesAll = removesAll
            self.writes = writes
        }

        mutating func add(_ write: Write) {
            switch write {
            case .removeAll:
                removesAll = true
                writes.removeAll()
            case .set(let key, let value):
                writes[key] = .some(value)
            }
        }
    }

    // MARK: Writing

    /// The record of `writes`, after removing every value when `removingAll`, for a journal with `salt`.
    package static func record(
        removingAll: Bool,
        _ writes: some Sequence<(String, PropertyListValue?)>,
        salt: UInt64
    ) -> [UInt8] {
        record(payload: payload(removingAll: removingAll, writes), salt: salt)
    }

    /// A record's payload: what it writes, without the mark, length and hash that depend on the journal.
    static func payload(removingAll: Bool, _ writes: some Sequence<(String, PropertyListValue?)>) -> [UInt8] {
        var payload = Payload(removingAll: removingAll)
        for (key, value) in writes { payload.add(key, value) }
        return payload.bytes
    }

    /// A payload being made, write by write.
    struct Payload {
        private(set) var bytes: [UInt8]

        init(removingAll: Bool) {
            bytes = [removingAll ? 1 : 0, 0, 0, 0, 0]
            bytes.reserveCapacity(64)
        }

        mutating func add(_ key: String, _ value: PropertyListValue?) {
            // The count, little-endian in bytes 1 to 4, one more.
            var count = UInt32(bytes[1]) | UInt32(bytes[2]) << 8 | UInt32(bytes[3]) << 16 | UInt32(bytes[4]) << 24
            count &+= 1
            for index in 0..<4 { bytes[1 + index] = UInt8(truncatingIfNeeded: count >> (8 * index)) }
            SuiteJournal.appendString(key, to: &bytes)
            if let value {
                bytes.append(1)
                SuiteJournal.encode(value, into: &bytes)
            } else {
                bytes.append(0)
            }
        }
    }

    /// The record of `payload` in a journal with `salt`.
    static func record(payload: [UInt8], salt: UInt64) -> [UInt8] {
        let hash = hash(payload[...], salt: salt)
        return [UInt8](unsafeUninitializedCapacity: 16 + payload.count) { buffer, count in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            raw.storeBytes(of: magic.littleEndian, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: UInt32(payload.count).littleEndian, toByteOffset: 4, as: UInt32.self)
            raw.storeBytes(of: hash.littleEndian, toByteOffset: 8, as: UInt64.self)
            payload.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: raw[16...]).copyMemory(from: $0) }
            count = 16 + payload.count
        }
    }

    fileprivate static func encode(_ value: PropertyListValue, into bytes: inout [UInt8]) {
        switch value {
        case .string(let string):
            bytes.append(0)
            appendString(string, to: &bytes)
        case .bool(let bool):
            bytes.append(1)
            bytes.append(bool ? 1 : 0)
        case .integer(let integer):
            bytes.append(2)
            appendInteger(UInt64(bitPattern: integer), to: &bytes)
        case .unsignedInteger(let integer):
            bytes.append(3)
            appendInteger(integer, to: &bytes)
        case .double(let double):
            bytes.append(4)
            appendInteger(double.bitPattern, to: &bytes)
        case .data(let data):
            bytes.append(5)
            appendInteger(UInt32(data.count), to: &bytes)
            bytes += data
        case .date(let date):
            bytes.append(6)
            appendInteger(date.timeIntervalSinceReferenceDate.bitPattern, to: &bytes)
        case .array(let elements):
            bytes.append(7)
            appendInteger(UInt32(elements.count), to: &bytes)
            for element in elements { encode(element, into: &bytes) }
        case .dictionary(let entries):
            bytes.append(8)
            appendInteger(UInt32(entries.count), to: &bytes)
            for (key, element) in entries {
                appendString(key, to: &bytes)
                encode(element, into: &bytes)
            }
        }
    }

    fileprivate static func appendString(_ string: String, to bytes: inout [UInt8]) {
        appendInteger(UInt32(string.utf8.count), to: &bytes)
        bytes += string.utf8
    }

    private static func appendInteger<Integer: FixedWidthInteger>(_ integer: Integer, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: MemoryLayout<Integer>.size * 8, by: 8) {
            bytes.append(UInt8(truncatingIfNeeded: integer >> shift))
        }
    }

    /// FNV-1a, 64 bits, over the journal's salt and then `bytes`: cheap, and enough to tell a whole record from a
    /// torn or changed one.
    ///
    /// The salt is random, made with the lock file: a record's bytes inside a value (a string another program
    /// handed in) never pass for a record of the journal when reading looks for the next one past damage.
    static func hash(_ bytes: ArraySlice<UInt8>, salt: UInt64) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var remaining = salt
        for _ in 0..<8 {
            hash = (hash ^ (remaining & 0xFF)) &* 0x0000_0100_0000_01b3
            remaining >>= 8
        }
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    // MARK: Reading

    /// The writes of the whole records at the start of `bytes`, in order; how many bytes they take; and whether
    /// reading stopped at a damaged record, rather than at the end or at a record cut short (one still being
    /// written, or one whose writer died in the middle of its `write(2)`, whose `set` never returned).
    ///
    /// A record's hash is checked before anything of it is read, and every length against what is left, so no
    /// input makes this allocate more than `bytes` holds, nest deeper than ``PropertyListValue/maximumDepth``, or
    /// trap.
    ///
    /// With `allWritten` (read under the exclusive lock, when no write is under way), a record that claims more
    /// bytes than follow it is one a failed write cut short when a whole record follows it: it is skipped to that
    /// one. Otherwise it may still be being written, and reading stops there.
    package static func read(
        _ bytes: ArraySlice<UInt8>,
        salt: UInt64,
        allWritten: Bool = false
    ) -> (writes: [Write], consumed: Int, damaged: Bool) {
        var writes: [Write] = []
        var offset = bytes.startIndex
        var damaged = false
        while let (length, hash) = header(at: offset, in: bytes) {
            guard let length, let hash else {
                damaged = true
                offset = nextMagic(in: bytes, after: offset)
                continue
            }
            guard length <= bytes.endIndex - offset - 16 else {
                let next = nextMagic(in: bytes, after: offset)
                guard allWritten, isWholeRecord(at: next, in: bytes, salt: salt) else { break }
                damaged = true
                offset = next
                continue
            }
            let payload = bytes[offset + 16..<offset + 16 + length]
            guard Self.hash(payload, salt: salt) == hash, let record = Self.writes(in: payload) else {
                // Bytes a failed write left (a full disk), or another program's: the next record starts after.
                damaged = true
                offset = nextMagic(in: bytes, after: offset)
                continue
            }
            writes += record
            offset += 16 + length
        }
        return (writes, offset - bytes.startIndex, damaged)
    }

    /// The length and hash of the record at `offset`; `(nil, nil)` if no record starts there; `nil` if fewer
    /// than a header's bytes are left.
    private static func header(at offset: Int, in bytes: ArraySlice<UInt8>) -> (Int?, UInt64?)? {
        guard bytes.endIndex - offset >= 16 else { return nil }
        var header = Reader(bytes: bytes[offset..<offset + 16])
        guard header.integer(UInt32.self) == magic, let length = header.integer(UInt32.self).map(Int.init),
            let hash = header.integer(UInt64.self)
        else { return (nil, nil) }
        return (length, hash)
    }

    private static func isWholeRecord(at offset: Int, in bytes: ArraySlice<UInt8>, salt: UInt64) -> Bool {
        guard case (let length?, let hash?)? = header(at: offset, in: bytes), length <= bytes.endIndex - offset - 16
        else { return false }
        return Self.hash(bytes[offset + 16..<offset + 16 + length], salt: salt) == hash
    }

    /// Marks the start of every record, so that reading can find the next whole record past damage.
    static let magic: UInt32 = 0x314A_4454  // "TDJ1"

    private static func nextMagic(in bytes: ArraySlice<UInt8>, after offset: Int) -> Int {
        let first = UInt8(truncatingIfNeeded: magic)
        var next = offset + 1
        while next + 4 <= bytes.endIndex {
            if bytes[next] == first, bytes[next + 1] == 0x44, bytes[next + 2] == 0x4A, bytes[next + 3] == 0x31 {
                return next
            }
            next += 1
        }
        // No record starts in what is left; keep its last bytes, which may start one being written.
        return max(offset + 1, bytes.endIndex - 3)
    }

    /// The writes of one record's payload; `nil` if it is no payload this type writes.
    static func writes(in payload: ArraySlice<UInt8>) -> [Write]? {
        var reader = Reader(bytes: payload)
        guard let flags = reader.byte(), flags <= 1, let count = reader.integer(UInt32.self) else { return nil }
        var writes: [Write] = flags == 1 ? [.removeAll] : []
        for _ in 0..<count {
            guard let key = reader.string(), let present = reader.byte(), present <= 1 else { return nil }
            if present == 0 {
                writes.append(.set(key, nil))
            } else {
                guard let value = reader.value(depth: 0) else { return nil }
                writes.append(.set(key, value))
            }
        }
        return reader.isAtEnd ? writes : nil
    }

    /// Reads a payload front to back; every read returns `nil` past the end.
    private struct Reader {
        var bytes: ArraySlice<UInt8>

        var isAtEnd: Bool { bytes.isEmpty }

        mutating func byte() -> UInt8? {
            bytes.popFirst()
        }

        mutating func integer<Integer: FixedWidthInteger>(_: Integer.Type) -> Integer? {
            let size = MemoryLayout<Integer>.size
            guard bytes.count >= size else { return nil }
            var value: Integer = 0
            for (shift, byte) in bytes.prefix(size).enumerated() { value |= Integer(byte) << (shift * 8) }
            bytes.removeFirst(size)
            return value
        }

        mutating func count() -> Int? {
            // Every element takes at least a byte: a count past what is left is damage, and allocates nothing.
            guard let count = integer(UInt32.self).map(Int.init), count <= bytes.count else { return nil }
            return count
        }

        mutating func string() -> String? {
            guard let length = count() else { return nil }
            let utf8 = bytes.prefix(length)
            bytes.removeFirst(length)
            let string = String(decoding: utf8, as: UTF8.self)
            // Repaired bytes were not valid UTF-8: no writer of the journal makes them.
            return string.utf8.elementsEqual(utf8) ? string : nil
        }

        mutating func value(depth: Int) -> PropertyListValue? {
            guard let tag = byte() else { return nil }
            switch tag {
            case 0: return string().map(PropertyListValue.string)
            case 1:
                guard let bool = byte(), bool <= 1 else { return nil }
                return .bool(bool == 1)
            case 2: return integer(UInt64.self).map { .integer(Int64(bitPattern: $0)) }
            case 3: return integer(UInt64.self).map(PropertyListValue.unsignedInteger)
            case 4: return integer(UInt64.self).map { .double(Double(bitPattern: $0)) }
            case 5:
                guard let length = count() else { return nil }
                defer { bytes.removeFirst(length) }
                return .data(Data(bytes.prefix(length)))
            case 6:
                return integer(UInt64.self).map { .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: $0))) }
            case 7, 8:
                guard depth < PropertyListValue.maximumDepth, let count = count() else { return nil }
                if tag == 7 {
                    var elements: [PropertyListValue] = []
                    for _ in 0..<count {
                        guard let element = value(depth: depth + 1) else { return nil }
                        elements.append(element)
                    }
                    return .array(elements)
                }
                var entries: [String: PropertyListValue] = [:]
                for _ in 0..<count {
                    guard let key = string(), let element = value(depth: depth + 1) else { return nil }
                    entries[key] = element
                }
                return .dictionary(entries)
            default: return nil
            }
        }
    }
}
#endif
