import Foundation

extension PropertyListXML {
    /// A suite's XML file that a dictionary of values cannot stand for, entry by entry in the file's order: one
    /// that holds two keys Swift's `String` takes to be equal though their bytes differ (`"é"` precomposed and
    /// decomposed, as Python's `plistlib` can write), or a value holding a keyed archiver's reference
    /// (`<dict><key>CF$UID</key><integer>3</integer></dict>`, which Foundation reads as a UID).
    ///
    /// A dictionary read from such a file keeps one of two spellings, and cannot hold a UID, so a file written
    /// from it would drop entries or give one key the other's value. A write of a few keys changes their entries
    /// here instead and leaves every other entry as it was, each spelling with its own value and each reference
    /// as the text that spells it; keys are matched by their bytes first (see `indexOfKey(_:)`).
    ///
    /// ```swift
    /// let list = PropertyListXML.EntryList(reading: data)   // nil for a file a dictionary stands for
    /// let next = list?.updating([("other", .integer(1))])
    /// ```
    struct EntryList: Sendable {
        private var names: [String?]
        private var entries: [PropertyListValue]
        /// Whether each entry holds a reference: reads do not see it, since Foundation reads no dictionary there.
        private var hidden: [Bool]
        /// The file's bytes.
        let bytes: [UInt8]

        /// The entries of `data`; `nil` unless it is an XML property list whose root is a dictionary holding
        /// two keys that are equal as strings and differ in their bytes, or a keyed archiver's reference.
        init?(reading data: Data) {
            guard let list = PropertyListXMLReader.entryList(from: data),
                list.contains(where: \.isReference) || Set(list.lazy.map(\.key)).count < list.count
            else { return nil }
            self.init(names: list.map(\.key), entries: list.map(\.value), hidden: list.map(\.isReference))
        }

        /// A file of `entries` in their order, each spelling of a key its own entry.
        init(_ entries: [(key: String, value: PropertyListValue)]) {
            self.init(names: entries.map(\.key), entries: entries.map(\.value), hidden: entries.map { _ in false })
        }

        private init(names: [String?], entries: [PropertyListValue], hidden: [Bool]) {
            self.names = names
            self.entries = entries
            self.hidden = hidden
            var output = Array(header.utf8)
            if entries.isEmpty {
                output.append(contentsOf: "<dict/>\n</plist>\n".utf8)
            } else {
                output.append(contentsOf: "<dict>\n".utf8)
                for (name, value) in zip(names, entries) { writeEntry(name ?? "", value, depth: 1, into: &output) }
                output.append(contentsOf: "</dict>\n</plist>\n".utf8)
            }
            bytes = output
        }

        /// How many entries the file holds, those reads do not see included.
        var count: Int { names.count }

        /// Whether ``values`` keeps an entry under a name from ``KeySpelling``.
        var holdsSpellings: Bool {
            KeySpelling.names(of: names).contains { $0.map(KeySpelling.isMarked) ?? false }
        }

        /// What reads find: every entry but those holding a reference; of two keys Swift takes to be equal, the
        /// first in the file's order is found by its key, and each later one by its name from ``KeySpelling``.
        var values: [String: PropertyListValue] {
            var values: [String: PropertyListValue] = [:]
            let names = KeySpelling.names(of: names)
            for index in names.indices where !hidden[index] {
                guard let name = names[index], values[name] == nil else { continue }
                values[name] = entries[index]
            }
            return values
        }

        /// The list with `changes` made in order (a `nil` value removes its key), every other entry as it was.
        func updating(_ changes: [(key: String, value: PropertyListValue?)]) -> EntryList {
            var names = names
            var entries = entries
            var hidden = hidden
            for (key, value) in changes {
                switch (names.indexOfKey(key), value) {
                case (let index?, let value?):
                    entries[index] = value
                    hidden[index] = false
                case (let index?, nil):
                    names.remove(at: index)
                    entries.remove(at: index)
                    hidden.remove(at: index)
                case (nil, let value?):
                    names.append(key)
                    entries.append(value)
                    hidden.append(false)
                case (nil, nil):
                    break
                }
            }
            return EntryList(names: names, entries: entries, hidden: hidden)
        }
    }
}
