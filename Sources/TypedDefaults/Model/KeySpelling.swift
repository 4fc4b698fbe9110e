/// The names under which a suite's values are kept in memory when its file holds two keys that Swift's `String`
/// takes to be equal though their bytes differ (`"café"` with `U+00E9`, and with `e` + `U+0301`, as Python's
/// `plistlib` can write).
///
/// A dictionary keyed by `String` holds one of the two, so each later spelling is kept under a name of its
/// own: a noncharacter (`U+FFFF`, which no property-list key holds) followed by the spelling's UTF-8 bytes in
/// hexadecimal. No two spellings share that name, and no key of the file can be mistaken for it: a key that
/// itself starts with `U+FFFF` is kept under such a name too. The file store turns a key into its name on the
/// way in (reads and writes) and the name back into its spelling on the way out (the file, observers,
/// snapshots).
///
/// ```swift
/// let name = KeySpelling.name(of: "cafe\u{301}")   // "\u{FFFF}636166" + "65cc81"
/// KeySpelling.spelling(of: name)                     // "cafe\u{301}", its bytes unchanged
/// ```
enum KeySpelling {
    /// The name that keeps `spelling` apart from every other spelling.
    static func name(of spelling: String) -> String {
        var name = "\u{FFFF}"
        name.reserveCapacity(3 + spelling.utf8.count * 2)
        for byte in spelling.utf8 {
            name.unicodeScalars.append(hexDigits[Int(byte >> 4)])
            name.unicodeScalars.append(hexDigits[Int(byte & 0xF)])
        }
        return name
    }

    /// The spelling a name made by ``name(of:)`` stands for; `nil` for any other key.
    static func spelling(of name: String) -> String? {
        guard isMarked(name) else { return nil }
        var bytes: [UInt8] = []
        var high: UInt8?
        for scalar in name.unicodeScalars.dropFirst() {
            guard let digit = hexDigits.firstIndex(of: scalar).map(UInt8.init) else { return nil }
            if let first = high {
                bytes.append(first << 4 | digit)
                high = nil
            } else {
                high = digit
            }
        }
        guard high == nil else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `key` starts with `U+FFFF`: a name made by ``name(of:)``, or a key that must be kept under one.
    @inline(__always)
    static func isMarked(_ key: String) -> Bool {
        // U+FFFF is EF BF BF in UTF-8; the first byte rules out nearly every key without more work.
        key.utf8.first == 0xEF && key.unicodeScalars.first == "\u{FFFF}"
    }

    /// Names for the entries of a file, in the file's order.
    ///
    /// Each key keeps its own, except a spelling equal to an earlier one (or a marked key), which gets
    /// ``name(of:)``; an exact repeat of a key's bytes gets `nil`, as the first is the one reads find.
    static func names(of keys: [String?]) -> [String?] {
        var seen = Set<String>()
        var seenBytes = Set<[UInt8]>()
        return keys.map { key in
            guard let key, seenBytes.insert(Array(key.utf8)).inserted else { return nil }
            return !isMarked(key) && seen.insert(key).inserted ? key : name(of: key)
        }
    }

    private static let hexDigits: [Unicode.Scalar] = Array("0123456789abcdef".unicodeScalars)
}
