/// The answers to the last lookups by name, found again without hashing the name.
///
/// Hashing a key's name for a dictionary costs more than the rest of a read. A key's name is usually a
/// literal, the same 16 bytes on every read, so a table indexed by those bytes finds the answer first. Two
/// strings with the same 16 bytes hold the same text while both are alive (that is how Swift's own `==`
/// starts), and the table keeps each name it holds alive.
///
/// Only literals and names short enough to be kept inline (15 UTF-8 bytes or fewer) are remembered: a longer
/// name built at run time has new storage, so new bytes, each time, and remembering it would only cost.
///
/// An answer counts only while what it was looked up in is unchanged: the owner passes a serial that changes
/// with every change of it, and an answer remembered under another serial is looked up again.
@usableFromInline
struct RecentLookups<Answer: Sendable>: Sendable {
    @usableFromInline
    struct Entry: Sendable {
        /// The bytes of `name`; no string has all 16 zero, so an unused entry matches none.
        @usableFromInline var bits: (UInt64, UInt64) = (0, 0)
        /// Kept alive, so that no other string can have its bytes meanwhile.
        @usableFromInline var name = ""
        @usableFromInline var serial: UInt64 = 0
        @usableFromInline var answer: Answer?

        @inlinable
        init() {}

        @inlinable
        init(bits: (UInt64, UInt64), name: String, serial: UInt64, answer: Answer) {
            (self.bits, self.name, self.serial, self.answer) = (bits, name, serial, answer)
        }
    }

    /// 64 entries, a power of two that ``index(_:)`` shifts to.
    @usableFromInline var entries = [Entry](repeating: Entry(), count: 64)

    @usableFromInline
    init() {}

    /// The answer remembered for `name` under `serial`, if there is one.
    @inlinable
    func answer(for name: String, serial: UInt64) -> Answer? {
        guard let bits = Self.bits(of: name) else { return nil }
        let index = Self.index(bits)
        guard entries[index].bits == bits, entries[index].serial == serial else { return nil }
        return entries[index].answer
    }

    /// Remembers the answer for `name`, found under `serial`, in place of another name's.
    @inlinable
    mutating func remember(_ answer: Answer, for name: String, serial: UInt64) {
        // The top bit marks an immortal string: a literal, or one short enough to be kept inline.
        guard let bits = Self.bits(of: name), bits.1 >> 63 == 1 else { return }
        entries[Self.index(bits)] = Entry(bits: bits, name: name, serial: serial, answer: answer)
    }

    /// The 16 bytes of `name`; `nil` where a string has another size (watchOS on arm64_32), so the table is
    /// never used there.
    @inlinable
    static func bits(of name: String) -> (UInt64, UInt64)? {
        guard MemoryLayout<String>.size == MemoryLayout<(UInt64, UInt64)>.size else { return nil }
        return unsafeBitCast(name, to: (UInt64, UInt64).self)
    }

    @inlinable
    static func index(_ bits: (UInt64, UInt64)) -> Int {
        Int(truncatingIfNeeded: ((bits.0 ^ bits.1) &* 0x9E37_79B9_7F4A_7C15) >> 58)
    }
}
