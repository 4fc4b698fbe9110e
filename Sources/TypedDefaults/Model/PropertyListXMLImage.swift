import Foundation

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
            guard !keys.isEmpty else { return Image(changes.compactMapValues { $0 }) }
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count + changes.count * 128)
            // Most writes replace values of keys the file has: the keys stay as they are, shared, not copied.
            let keysChange = changes.contains { key, value in value == nil || !contains(key) }
            var newKeys: [String] = []
            if keysChange { newKeys.reserveCapacity(keys.count + changes.count) }
            var newStarts: [Int] = []
            newStarts.reserveCapacity(keys.count + changes.count)
            output.append(contentsOf: bytes[..<starts[0]])
            var next = 0
            // Copies the entries from `next` up to `index` as they are, moved by however much the file grew.
            func copyEntries(upTo index: Int) {
                guard index > next else { return }
                let shift = output.count - starts[next]
                output.append(contentsOf: bytes[starts[next]..<start(of: index)])
                if keysChange { newKeys.append(contentsOf: keys[next..<index]) }
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
                if keysChange { newKeys.append(written) }
                newStarts.append(output.count)
                writeEntry(written, value, depth: 1, into: &output)
            }
            copyEntries(upTo: keys.count)
            guard !newStarts.isEmpty else { return Image([:]) }
            let end = output.count
            output.append(contentsOf: Self.footer)
            return Image(bytes: output, keys: keysChange ? newKeys : keys, starts: newStarts, end: end)
        }

        /// The values and the image of `newBytes`, a later version of this image's file, found by reading only
        /// the entries whose bytes differ.
        ///
        /// `values` are what this image's bytes hold. `nil` when that is not possible (the header or footer
        /// changed, an edit leaves the keys out of order or repeats one, a run does not read); then the whole
        /// file is to be read.
        ///
        /// The result is what reading `newBytes` whole gives: the bytes before and after the run that differs are
        /// this image's, whose entries `values` holds, and the run is read by the same reader.
        func reading(
            _ newBytes: UnsafeBufferPointer<UInt8>,
            values: [String: PropertyListValue]
        ) -> (values: [String: PropertyListValue], image: Image)? {
            guard !keys.isEmpty, values.count == keys.count else { return nil }
            let old = bytes
            return old.withUnsafeBufferPointer { old -> (values: [String: PropertyListValue], image: Image)? in
                let prefix = commonPrefix(old, newBytes)
                if prefix == old.count, old.count == newBytes.count { return (values, self) }
                let suffix = commonSuffix(old, newBytes, limit: min(old.count, newBytes.count) - prefix)
                // The run of entries that holds every differing byte, by this image's entries.
                let differentEnd = old.count - suffix
                guard prefix >= starts[0], differentEnd <= end else { return nil }
                let first = position(ofOffset: prefix)
                var last = first
                while last < keys.count, starts[last] < differentEnd { last += 1 }
                let oldStart = starts[first]
                let oldEnd = start(of: last)
                let growth = newBytes.count - old.count
                let newEnd = oldEnd + growth
                guard newEnd >= oldStart else { return nil }
                guard
                    let entries = PropertyListXMLReader.entries(
                        in: UnsafeBufferPointer(rebasing: newBytes[oldStart..<newEnd])
                    )
                else { return nil }
                // The run's keys must keep the file's order, so that later edits find them.
                for (index, entry) in entries.enumerated() {
                    let previous = index == 0 ? (first == 0 ? nil : keys[first - 1]) : entries[index - 1].key
                    if let previous, !(previous < entry.key) { return nil }
                }
                if let lastKey = entries.last?.key, last < keys.count, !(lastKey < keys[last]) { return nil }
                var newValues = values
                for key in keys[first..<last] { newValues[key] = nil }
                for entry in entries {
                    // A key that is also outside the run: the file holds it twice, which the whole reader refuses.
                    guard newValues.updateValue(entry.value, forKey: entry.key) == nil else { return nil }
                }
                guard !newValues.isEmpty, !(newValues.count == 1 && newValues["CF$UID"] != nil) else { return nil }
                var newKeys = Array(keys[..<first])
                newKeys.reserveCapacity(keys.count - (last - first) + entries.count)
                newKeys.append(contentsOf: entries.lazy.map(\.key))
                newKeys.append(contentsOf: keys[last...])
                var newStarts = Array(starts[..<first])
                newStarts.reserveCapacity(newKeys.count)
                newStarts.append(contentsOf: entries.lazy.map { $0.start + oldStart })
                newStarts.append(contentsOf: starts[last...].lazy.map { $0 + growth })
                let image = Image(bytes: Array(newBytes), keys: newKeys, starts: newStarts, end: end + growth)
                return (newValues, image)
            }
        }

        /// The entry that holds the byte at `offset`: the last whose start is not after it.
        private func position(ofOffset offset: Int) -> Int {
            var low = 0
            var high = starts.count
            while low < high {
                let middle = (low + high) / 2
                if starts[middle] <= offset { low = middle + 1 } else { high = middle }
            }
            return max(low - 1, 0)
        }

        /// Where the entry at `index` starts; `keys.count` is the end of the last entry.
        private func start(of index: Int) -> Int {
            index < starts.count ? starts[index] : end
        }

        /// Whether the file has `key`.
        private func contains(_ key: String) -> Bool {
            let index = position(of: key, from: 0)
            return index < keys.count && keys[index] == key
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
    }
}

/// How many bytes `a` and `b` share from their starts; compared a block at a time, since a suite's versions
/// share nearly all their bytes.
private func commonPrefix(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
    let count = min(a.count, b.count)
    var length = 0
    while count - length >= 256, memcmp(a.baseAddress! + length, b.baseAddress! + length, 256) == 0 { length += 256 }
    while length < count, a[length] == b[length] { length += 1 }
    return length
}

/// How many bytes `a` and `b` share at their ends, up to `limit`.
private func commonSuffix(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>, limit: Int) -> Int {
    var length = 0
    while limit - length >= 256,
        memcmp(a.baseAddress! + a.count - length - 256, b.baseAddress! + b.count - length - 256, 256) == 0
    {
        length += 256
    }
    while length < limit, a[a.count - 1 - length] == b[b.count - 1 - length] { length += 1 }
    return length
}
