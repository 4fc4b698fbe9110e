import Foundation

/// Reads the XML property lists that TypedDefaults, Foundation, Python's `plistlib` and macOS's `defaults`
/// write, straight into a ``PropertyListValue``.
///
/// Foundation's reader builds a tree of Foundation objects that then has to be converted, which costs more
/// than the parse. This reader understands a strict subset of XML and returns `nil` for anything outside it,
/// so the caller hands the bytes to Foundation instead: it never reads a file differently from Foundation, it
/// only reads the usual files faster. Outside the subset, on purpose:
/// - any DOCTYPE but Apple's (which is skipped, never fetched), entities, comments, processing instructions,
///   CDATA, attributes, an encoding other than UTF-8, a byte order mark;
/// - spellings Foundation reads loosely: whitespace around numbers or dates, `+5`, `0x10`, `NaN`, a date such
///   as February 30 that Foundation rolls over, Base64 with stray characters, `<true></true>`;
/// - what Foundation reads differently from its text: a string or key starting with U+FEFF (dropped), a
///   dictionary holding only `CF$UID` (an archiver's reference), two keys Swift takes to be equal;
/// - arrays and dictionaries nested more than 512 levels, the suite's dictionary included, which Foundation
///   refuses. Nesting is kept on a stack of the reader's own, not by recursion, so the deepest file it reads
///   needs no more thread stack than a flat one.
///
/// ```swift
/// let value = PropertyListXMLReader.value(from: data)   // nil: ask Foundation instead
/// ```
package enum PropertyListXMLReader {
    /// The value `data` holds, or `nil` if this reader does not read it (Foundation may still).
    package static func value(from data: Data) -> PropertyListValue? {
        data.withUnsafeBytes { raw in
            var parser = Parser(bytes: raw.bindMemory(to: UInt8.self))
            return parser.document()
        }
    }

    /// One entry of ``entryList(from:)``: `isReference` when its value holds a dictionary that Foundation reads
    /// as a keyed archiver's reference (a UID), which its value here holds as that dictionary.
    struct ListedEntry {
        var key: String
        var value: PropertyListValue
        var isReference: Bool
    }

    /// The entries of a document whose root is a dictionary, in the file's order.
    ///
    /// They include what ``value(from:)`` leaves to Foundation because Foundation reads it otherwise: keys that
    /// Swift's `String` takes to be equal (Foundation keeps one of them), and dictionaries holding only `CF$UID`
    /// (Foundation reads a UID), which are kept as the dictionaries the text spells. `nil` for anything else
    /// ``value(from:)`` does not read, for a key written twice with the same bytes, and for a root holding only
    /// `CF$UID`.
    static func entryList(from data: Data) -> [ListedEntry]? {
        data.withUnsafeBytes { raw in
            var parser = Parser(bytes: raw.bindMemory(to: UInt8.self))
            parser.readsArchiverReferences = true
            return parser.entryList()
        }
    }

    /// The deepest Foundation's reader nests `<array>` and `<dict>` elements, the outermost one included.
    static let maximumNesting = 512

    /// One entry of the suite's dictionary: its key, its value, and where it starts in the bytes read.
    struct Entry {
        var key: String
        var value: PropertyListValue
        var start: Int
    }

    /// The entries of a run of the suite's dictionary's body, as the file lays them out: each is optional
    /// whitespace, a `<key>`, whitespace, a value and the rest of its line; `nil` unless `bytes` is exactly such
    /// a run, or if it holds a key twice, or anything else ``value(from:)`` does not read.
    ///
    /// Each entry's value is read as in the suite's dictionary, one level deep. The caller checks what a run
    /// cannot: that its keys are not also elsewhere in the dictionary.
    static func entries(in bytes: UnsafeBufferPointer<UInt8>) -> [Entry]? {
        var parser = Parser(bytes: bytes)
        return parser.entries()
    }
}

struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0
    /// Whether a dictionary holding only `CF$UID` reads as that dictionary (noted in `sawArchiverReference`)
    /// rather than making the value unreadable.
    var readsArchiverReferences = false
    var sawArchiverReference = false

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func document() -> PropertyListValue? {
        guard prolog() else { return nil }
        guard let value = value() else { return nil }
        return epilog() ? value : nil
    }

    /// See ``PropertyListXMLReader/entryList(from:)``.
    mutating func entryList() -> [PropertyListXMLReader.ListedEntry]? {
        guard prolog(), skip("<dict>") else { return nil }
        var entries: [PropertyListXMLReader.ListedEntry] = []
        var spellings = Set<[UInt8]>()
        while true {
            skipWhitespace()
            if skip("</dict>") { break }
            guard skip("<key>"), let key = text(closing: "</key>"), spellings.insert(Array(key.utf8)).inserted else {
                return nil
            }
            skipWhitespace()
            sawArchiverReference = false
            guard let value = value(depth: 1) else { return nil }
            entries.append(.init(key: key, value: value, isReference: sawArchiverReference))
        }
        guard entries.count != 1 || entries[0].key != "CF$UID" else { return nil }
        return epilog() ? entries : nil
    }

    /// Skips what comes before the root element; `false` if that is outside what this reader reads.
    private mutating func prolog() -> Bool {
        _ = skip("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
        skipWhitespace()
        if skip("<!DOCTYPE") {
            guard
                skip(
                    " plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">"
                )
            else { return false }
            skipWhitespace()
        }
        guard skip("<plist version=\"1.0\">") || skip("<plist>") else { return false }
        skipWhitespace()
        return true
    }

    /// Skips what comes after the root element; `false` unless that is the end of the document.
    private mutating func epilog() -> Bool {
        skipWhitespace()
        guard skip("</plist>") else { return false }
        skipWhitespace()
        return position == bytes.count
    }

    // MARK: Elements

    private enum Element {
        case value(PropertyListValue)
        case array
        case dictionary
    }

    private enum Container {
        case array
        case dictionary
    }

    /// See ``PropertyListXMLReader/entries(in:)``.
    mutating func entries() -> [PropertyListXMLReader.Entry]? {
        var entries: [PropertyListXMLReader.Entry] = []
        var keys = Set<String>()
        while position < bytes.count {
            let start = position
            skipWhitespace()
            guard skip("<key>"), let key = text(closing: "</key>"), keys.insert(key).inserted else { return nil }
            skipWhitespace()
            guard let value = value(depth: 1) else { return nil }
            // The rest of the line belongs to the entry; the next one starts on the next line.
            while position < bytes.count, bytes[position] == 0x20 || bytes[position] == 0x09 { position += 1 }
            if position < bytes.count, bytes[position] == 0x0A { position += 1 }
            entries.append(PropertyListXMLReader.Entry(key: key, value: value, start: start))
        }
        return entries
    }

    /// The value of the element at the position, `depth` containers deep, read with a stack of its own rather
    /// than by recursion, so that a deep file needs no more thread stack than a flat one.
    mutating func value(depth: Int = 0) -> PropertyListValue? {
        var open: [Container] = []
        // The unfinished arrays and dictionaries, innermost last; each array is mutated in place.
        var arrays: [[PropertyListValue]] = []
        var dictionaries: [[String: PropertyListValue]] = []
        var keys: [String] = []
        while true {
            var finished: PropertyListValue?
            switch element(depth: depth + open.count) {
            case nil: return nil
            case .value(let value)?: finished = value
            case .array?:
                open.append(.array)
                arrays.append([])
            case .dictionary?:
                open.append(.dictionary)
                dictionaries.append([:])
            }
            // Put the finished value in its container and close the containers it completes, until the next
            // value is due.
            placing: while true {
                guard let container = open.last else { return finished }
                switch container {
                case .array:
                    if let value = finished {
                        arrays[arrays.count - 1].append(value)
                        finished = nil
                    }
                    skipWhitespace()
                    if skip("</array>") {
                        open.removeLast()
                        finished = .array(arrays.removeLast())
                        continue placing
                    }
                case .dictionary:
                    if let value = finished {
                        // Foundation keeps the last of two equal keys, but which of two keys Swift calls equal
                        // ("é" and "e" + U+0301) survives its conversion depends on hashing order.
                        let key = keys.removeLast()
                        guard dictionaries[dictionaries.count - 1].updateValue(value, forKey: key) == nil else {
                            return nil
                        }
                        finished = nil
                    }
                    skipWhitespace()
                    if skip("</dict>") {
                        open.removeLast()
                        let entries = dictionaries.removeLast()
                        // Foundation reads this as a keyed archiver's reference, which is no property-list value.
                        if entries.count == 1, entries["CF$UID"] != nil {
                            guard readsArchiverReferences else { return nil }
                            sawArchiverReference = true
                        }
                        finished = .dictionary(entries)
                        continue placing
                    }
                    guard skip("<key>"), let key = text(closing: "</key>") else { return nil }
                    keys.append(key)
                    skipWhitespace()
                }
                break placing
            }
        }
    }

    /// A scalar element, or the start of an array or dictionary `depth` containers deep.
    private mutating func element(depth: Int) -> Element? {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "<") else { return nil }
        if skip("<string>") {
            return text(closing: "</string>").map { .value(.string($0)) }
        } else if skip("<integer>") {
            return content(closing: "</integer>").flatMap(Self.integer).map(Element.value)
        } else if skip("<real>") {
            return content(closing: "</real>").flatMap(Self.real).map(Element.value)
        } else if skip("<true/>") {
            return .value(.bool(true))
        } else if skip("<false/>") {
            return .value(.bool(false))
        } else if skip("<date>") {
            return content(closing: "</date>").flatMap(Self.date).map(Element.value)
        } else if skip("<data>") {
            return content(closing: "</data>").flatMap(Self.data).map(Element.value)
        } else if skip("<string/>") {
            return .value(.string(""))
        }
        guard depth < PropertyListXMLReader.maximumNesting else { return nil }
        if skip("<dict>") {
            return .dictionary
        } else if skip("<array>") {
            return .array
        } else if skip("<dict/>") {
            return .value(.dictionary([:]))
        } else if skip("<array/>") {
            return .value(.array([]))
        }
        return nil
    }

    // MARK: Text

    /// The bytes up to the next `<`, which must start `closing`: the text of a number, date or data.
    mutating func content(closing: StaticString) -> UnsafeBufferPointer<UInt8>? {
        let start = position
        while position < bytes.count, bytes[position] != UInt8(ascii: "<") { position += 1 }
        let end = position
        guard skip(closing) else { return nil }
        return UnsafeBufferPointer(rebasing: bytes[start..<end])
    }

    /// The text of a `<string>` or `<key>`, references replaced.
    mutating func text(closing: StaticString) -> String? {
        let start = position
        var plain = true
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "<") { break }
            if byte == UInt8(ascii: "&") || byte >= 0x80 {
                plain = false
            } else if byte < 0x20, byte != 0x09, byte != 0x0A, byte != 0x0D {
                return nil
            }
            position += 1
        }
        let raw = UnsafeBufferPointer(rebasing: bytes[start..<position])
        guard skip(closing) else { return nil }
        if plain { return String(decoding: raw, as: UTF8.self) }

        var decoded: [UInt8] = []
        decoded.reserveCapacity(raw.count)
        var index = 0
        while index < raw.count {
            let byte = raw[index]
            guard byte == UInt8(ascii: "&") else {
                decoded.append(byte)
                index += 1
                continue
            }
            guard let semicolon = raw[index...].firstIndex(of: UInt8(ascii: ";")) else { return nil }
            let name = UnsafeBufferPointer(rebasing: raw[(index + 1)..<semicolon])
            guard let scalar = Self.reference(name) else { return nil }
            decoded.append(contentsOf: String(scalar).utf8)
            index = semicolon + 1
        }
        // `String(validating:as:)` needs macOS 15 / iOS 18: decoding repairs ill-formed UTF-8, so the bytes
        // come back unchanged exactly when they were valid.
        let string = String(decoding: decoded, as: UTF8.self)
        guard string.utf8.elementsEqual(decoded) else { return nil }
        // Foundation drops a leading U+FEFF.
        if string.unicodeScalars.first == "\u{FEFF}" { return nil }
        return string
    }

    /// The character an entity or character reference (between `&` and `;`) stands for.
    static func reference(_ name: UnsafeBufferPointer<UInt8>) -> Unicode.Scalar? {
        switch String(decoding: name, as: UTF8.self) {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        default: break
        }
        guard name.count >= 2, name.count <= 9, name[0] == UInt8(ascii: "#") else { return nil }
        let hex = name[1] == UInt8(ascii: "x")
        let digits = UnsafeBufferPointer(rebasing: name[(hex ? 2 : 1)...])
        // `UInt32(_:radix:)` alone would also take a sign.
        guard !digits.isEmpty, digits.allSatisfy({ isDigit($0) || (hex && isHexLetter($0)) }),
            let code = UInt32(String(decoding: digits, as: UTF8.self), radix: hex ? 16 : 10),
            code != 0
        else { return nil }
        return Unicode.Scalar(code)
    }

    // MARK: Bytes

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: " "), 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// Moves past `literal` if the bytes at the position spell it.
    mutating func skip(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - position >= count else { return false }
        let start = literal.utf8Start
        for offset in 0..<count where bytes[position + offset] != start[offset] { return false }
        position += count
        return true
    }
}

func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
}

func isHexLetter(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
}
