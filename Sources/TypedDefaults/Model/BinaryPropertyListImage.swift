import Foundation

/// A suite's file in binary form: its top-level entries as the file holds them, and the bytes they make.
///
/// A write of a few keys replaces or removes those entries and leaves every other one as it was read, whatever
/// it holds (see ``BinaryPropertyListObject``), so a file another program wrote in binary form keeps what
/// `PropertyListValue` does not model. Keys are matched by their bytes first: two spellings of a key that
/// Swift's `String` takes to be equal (`"é"` precomposed and decomposed) are two entries, and a write of one
/// leaves the other alone; a key with no entry of its very bytes replaces the entry of an equal spelling, as
/// an XML file keeps its first spelling.
///
/// ```swift
/// let image = BinaryPropertyListImage(["a": .integer(1)])
/// let next = image.updating([("b", .string("two"))])   // bytes of ["a": 1, "b": "two"]
/// ```
struct BinaryPropertyListImage: Sendable {
    /// The top-level keys and values, in the file's order.
    private var keys: [BinaryPropertyListObject]
    private var objects: [BinaryPropertyListObject]
    /// Each key's text; `nil` for a key that is not a string.
    private var names: [String?]
    /// The file's bytes.
    let bytes: [UInt8]

    /// The image of a file whose top object is `root`; `nil` unless that is a dictionary.
    init?(_ root: BinaryPropertyListObject, bytes: [UInt8]) {
        guard case .dictionary(let keys, let objects) = root else { return nil }
        self.init(keys: keys, objects: objects, bytes: bytes)
    }

    /// Writes `values` whole, keys sorted.
    init(_ values: [String: PropertyListValue]) {
        let entries = values.sorted { $0.key < $1.key }
        self.init(
            keys: entries.map { BinaryPropertyListObject(.string($0.key)) },
            objects: entries.map { BinaryPropertyListObject($0.value) },
            bytes: nil
        )
    }

    private init(keys: [BinaryPropertyListObject], objects: [BinaryPropertyListObject], bytes: [UInt8]?) {
        self.keys = keys
        self.objects = objects
        self.names = keys.map(\.string)
        self.bytes = bytes ?? BinaryPropertyListWriter.bytes(.dictionary(keys, objects))
    }

    /// What reads find: every entry with a string key and a value that `PropertyListValue` models.
    ///
    /// Of two keys Swift takes to be equal, the first in the file's order is found by its key, and each later
    /// one by its name from ``KeySpelling``.
    var values: [String: PropertyListValue] {
        var values: [String: PropertyListValue] = [:]
        values.reserveCapacity(keys.count)
        let names = holdsSpellings ? KeySpelling.names(of: names) : names
        for (name, object) in zip(names, objects) {
            guard let name, values[name] == nil, let value = object.value else { continue }
            values[name] = value
        }
        return values
    }

    /// Whether ``values`` keeps an entry under a name from ``KeySpelling``: two keys are equal to Swift's
    /// `String` though their bytes differ, or a key starts with `U+FFFF`.
    var holdsSpellings: Bool {
        Set(names.compactMap { $0 }).count != names.count(where: { $0 != nil })
            || names.contains { $0.map(KeySpelling.isMarked) ?? false }
    }

    /// The image with `changes` made in order (a `nil` value removes its key), every other entry as it was.
    func updating(_ changes: [(key: String, value: PropertyListValue?)]) -> BinaryPropertyListImage {
        var keys = keys
        var objects = objects
        var names = names
        for (key, value) in changes {
            switch (names.indexOfKey(key), value) {
            case (let index?, let value?):
                objects[index] = BinaryPropertyListObject(value)
            case (let index?, nil):
                keys.remove(at: index)
                objects.remove(at: index)
                names.remove(at: index)
            case (nil, let value?):
                keys.append(BinaryPropertyListObject(.string(key)))
                objects.append(BinaryPropertyListObject(value))
                names.append(key)
            case (nil, nil):
                break
            }
        }
        return BinaryPropertyListImage(keys: keys, objects: objects, bytes: nil)
    }
}

extension [String?] {
    /// Where a suite's file holds the entry a write of `key` changes: the key of the very same bytes, else the
    /// first that Swift's `String` takes to be equal (the spelling a dictionary read from the file keeps).
    func indexOfKey(_ key: String) -> Int? {
        firstIndex { $0.map { $0.utf8.elementsEqual(key.utf8) } ?? false } ?? firstIndex { $0 == key }
    }
}
