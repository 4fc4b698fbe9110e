/// A suite's file as the writer wrote it, with where each top-level entry starts, so that a write of a few
/// keys copies the bytes of all the others instead of sorting and writing them again.
///
/// A large suite's write then costs a copy of its bytes and the entries that changed, not a sort and the text
/// of every value: at 10,000 keys, a fraction of a millisecond instead of several.
///
/// ```swift
/// let image = PropertyListXML.Image(["a": .integer(1), "b": .integer(2)])
/// let next = image.updating(["b": .integer(3)])   // the bytes PropertyListXML.data(["a": 1, "b": 3]) gives
/// ```
extension PropertyListXML {
    struct Image: Sendable {
        /// The file's bytes.
        private(set) var bytes: [UInt8]
        /// The top-level keys in the file's order (Swift's `<`), and where each one's entry starts in `bytes`.
        private var keys: [String]
        private var starts: [Int]
        /// Where the last entry ends: the dictionary's closing tag.
        private var end: Int

        private static let footer = Array("</dict>\n</plist>\n".utf8)

        /// Writes `values` whole.
        init(_ values: [String: PropertyListValue]) {
            var output: [UInt8] = []
            output.reserveCapacity(256 + values.count * 64)
            output.append(contentsOf: header.utf8)
            guard !values.isEmpty else {
                output.append(contentsOf: "<dict/>\n</plist>\n".utf8)
                self.init(bytes: output, keys: [], starts: [], end: output.count)
                return
            }
            output.append(contentsOf: "<dict>\n".utf8)
            let keys = values.keys.sorted()
            var starts: [Int] = []
            starts.reserveCapacity(keys.count)
            for key in keys {
                starts.append(output.count)
                writeEntry(key, values[key]!, depth: 1, into: &output)
            }
            let end = output.count
            output.append(contentsOf: Self.footer)
            self.init(bytes: output, keys: keys, starts: starts, end: end)
        }

        private init(bytes: [UInt8], keys: [String], starts: [Int], end: Int) {
            self.bytes = bytes
            self.keys = keys
            self.starts = starts
            self.end = end
        }

        /// The image of these values with `changes` made (a `nil` value removes its key); the same bytes as
        /// writing the changed values whole.
        func updating(_ changes: [String: PropertyListValue?]) -> Image {
            // An empty dictionary has a form of its own (`<dict/>`), written whole.
            guard !keys.isEmpty else { return Image(changedValues(changes)) }
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count + changes.count * 128)
            var newKeys: [String] = []
            newKeys.reserveCapacity(keys.count + changes.count)
            var newStarts: [Int] = []
            newStarts.reserveCapacity(keys.count + changes.count)
            output.append(contentsOf: bytes[..<starts[0]])
            var next = 0
            // Copies the entries from `next` up to `index` as they are, moved by however much the file grew.
            func copyEntries(upTo index: Int) {
                guard index > next else { return }
                let shift = output.count - starts[next]
                output.append(contentsOf: bytes[starts[next]..<start(of: index)])
                newKeys.append(contentsOf: keys[next..<index])
                newStarts.append(contentsOf: starts[next..<index].lazy.map { $0 + shift })
                next = index
            }
            for (key, value) in changes.sorted(by: { $0.key < $1.key }) {
                let index = position(of: key, from: next)
                copyEntries(upTo: index)
                // An existing key keeps the spelling the file has, as a dictionary keeps its first key.
                var written = key
                if index < keys.count, keys[index] == key {
                    written = keys[index]
                    next = index + 1
                }
                guard let value else { continue }
                newKeys.append(written)
                newStarts.append(output.count)
                writeEntry(written, value, depth: 1, into: &output)
            }
            copyEntries(upTo: keys.count)
            guard !newKeys.isEmpty else { return Image([:]) }
            let end = output.count
            output.append(contentsOf: Self.footer)
            return Image(bytes: output, keys: newKeys, starts: newStarts, end: end)
        }

        /// Where the entry at `index` starts; `keys.count` is the end of the last entry.
        private func start(of index: Int) -> Int {
            index < starts.count ? starts[index] : end
        }

        /// The first position at or after `low` whose key is not before `key`.
        private func position(of key: String, from low: Int) -> Int {
            var low = low
            var high = keys.count
            while low < high {
                let middle = (low + high) / 2
                if keys[middle] < key { low = middle + 1 } else { high = middle }
            }
            return low
        }

        /// The values of an image of no keys with `changes` made.
        private func changedValues(_ changes: [String: PropertyListValue?]) -> [String: PropertyListValue] {
            changes.compactMapValues { $0 }
        }
    }
}
