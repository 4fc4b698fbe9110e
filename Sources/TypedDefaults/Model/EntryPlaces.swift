/// Where a write's changes land among a file's top-level entries, found through maps rather than by a search
/// of the entries for each change, so that a write of k keys to a file of n entries costs k + n, not k × n
/// (also for a file that holds thousands of spellings of one key).
///
/// A change of a key lands on the entry of the very same bytes, else on the first entry that Swift's `String`
/// takes to be equal (the spelling a dictionary read from the file keeps), else on a new entry at the end.
///
/// ```swift
/// var places = EntryPlaces(["a", "caf\u{E9}", "cafe\u{301}"])
/// places.index(of: "cafe\u{301}")   // 2: its own bytes
/// places.remove(2)
/// places.index(of: "cafe\u{301}")   // 1: the equal spelling
/// places.kept                        // [0, 1]
/// ```
struct EntryPlaces {
    private var names: [String?]
    private var removed: [Bool]
    /// The entries with these bytes, in the file's order (more than one only in a file that repeats a key).
    private var byBytes: [[UInt8]: Candidates] = [:]
    /// The entries equal as strings, in the file's order.
    private var byKey: [String: Candidates] = [:]

    /// Entries in order, and how many at the front are known to be removed: each is passed over once.
    private struct Candidates {
        var indices: [Int] = []
        var removedAtFront = 0

        mutating func first(notIn removed: [Bool]) -> Int? {
            while removedAtFront < indices.count, removed[indices[removedAtFront]] { removedAtFront += 1 }
            return removedAtFront < indices.count ? indices[removedAtFront] : nil
        }
    }

    init(_ names: [String?]) {
        self.names = []
        removed = []
        for name in names {
            if let name { append(name) } else { appendUnnamed() }
        }
    }

    /// The entry a change of `key` lands on, if the file has one.
    mutating func index(of key: String) -> Int? {
        byBytes[Array(key.utf8)]?.first(notIn: removed) ?? byKey[key]?.first(notIn: removed)
    }

    /// Removes the entry at `index`.
    mutating func remove(_ index: Int) {
        removed[index] = true
    }

    /// Adds an entry for `key` at the end.
    mutating func append(_ key: String) {
        byKey[key, default: Candidates()].indices.append(names.count)
        byBytes[Array(key.utf8), default: Candidates()].indices.append(names.count)
        names.append(key)
        removed.append(false)
    }

    /// Adds an entry whose key is not a string: no change lands on it.
    private mutating func appendUnnamed() {
        names.append(nil)
        removed.append(false)
    }

    /// The indices of the entries left, in order.
    var kept: [Int] {
        removed.indices.filter { !removed[$0] }
    }
}
