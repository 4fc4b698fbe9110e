/// The answers to the last lookups by name, found again without hashing the name.
///
/// Hashing a key's name for a dictionary costs more than the rest of a read. A key's name is usually a
/// literal, the same 16 bytes on every read, so a table indexed by those bytes finds the answer first. Two
/// strings with the same 16 bytes hold the same text while both are alive (that is how Swift's own `==`
/// starts), and the table keeps each name it holds alive.
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
        let bits = unsafeBitCast(name, to: (UInt64, UInt64).self)
        let index = Self.index(bits)
        guard entries[index].bits == bits, entries[index].serial == serial else { return nil }
        return entries[index].answer
    }

    /// Remembers the answer for `name`, found under `serial`, in place of another name's.
    @inlinable
    mutating func remember(_ answer: Answer, for name: String, serial: UInt64) {
        let bits = unsafeBitCast(name, to: (UInt64, UInt64).self)
        entries[Self.index(bits)] = Entry(bits: bits, name: name, serial: serial, answer: answer)
    }

    @inlinable
    static func index(_ bits: (UInt64, UInt64)) -> Int {
        Int(truncatingIfNeeded: ((bits.0 ^ bits.1) &* 0x9E37_79B9_7F4A_7C15) >> 58)
    }
}
