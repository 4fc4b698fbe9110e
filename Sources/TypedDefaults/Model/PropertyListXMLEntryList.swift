import Foundation

extension PropertyListXML {
    /// A suite's XML file that holds two keys Swift's `String` takes to be equal though their bytes differ
    /// (`"é"` precomposed and decomposed, as Python's `plistlib` can write), entry by entry in the file's order.
    ///
    /// A dictionary read from such a file keeps one of the two, and a file written from it would drop the other
    /// or give it the first one's value. A write of a few keys changes their entries here instead and leaves
    /// every other entry as it was, each spelling with its own value; keys are matched by their bytes first
    /// (see `indexOfKey(_:)`).
    ///
    /// ```swift
    /// let list = PropertyListXML.EntryList(reading: data)   // nil unless two keys are equal as strings
    /// let next = list?.updating(["other": .integer(1)])
    /// ```
    struct EntryList: Sendable {
        private var names: [String?]
        private var entries: [PropertyListValue]
        /// The file's bytes.
        let bytes: [UInt8]

        /// The entries of `data`; `nil` unless it is an XML property list whose root is a dictionary holding
        /// two keys that are equal as strings and differ in their bytes.
        init?(reading data: Data) {
            guard let list = PropertyListXMLReader.entryList(from: data),
                Set(list.lazy.map(\.key)).count < list.count
            else { return nil }
            self.init(names: list.map(\.key), entries: list.map(\.value))
        }

        private init(names: [String?], entries: [PropertyListValue]) {
            self.names = names
            self.entries = entries
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

        /// What reads find; of two keys Swift takes to be equal, the first in the file's order gives the value.
        var values: [String: PropertyListValue] {
            var values: [String: PropertyListValue] = [:]
            for (name, value) in zip(names, entries) where values[name ?? ""] == nil { values[name ?? ""] = value }
            return values
        }

        /// The list with `changes` made (a `nil` value removes its key), every other entry as it was.
        func updating(_ changes: [String: PropertyListValue?]) -> EntryList {
            var names = names
            var entries = entries
            for (key, value) in changes.sorted(by: { $0.key < $1.key }) {
                switch (names.indexOfKey(key), value) {
                case (let index?, let value?):
                    entries[index] = value
                case (let index?, nil):
                    names.remove(at: index)
                    entries.remove(at: index)
                case (nil, let value?):
                    names.append(key)
                    entries.append(value)
                case (nil, nil):
                    break
                }
            }
            return EntryList(names: names, entries: entries)
        }
    }
}
