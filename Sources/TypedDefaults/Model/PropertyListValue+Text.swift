import Foundation

// The one place where text becomes a value. Launch arguments, the `defaults` tool and the bridges that accept
// strings (a `<string>3</string>` a script left for an `Int`, say) all read text by these rules, so the same
// text means the same value wherever a user types it. `package`, not public: the tool shares the rules, users
// get them through the bridges.

extension PropertyListValue {
    /// The Boolean `text` spells: `YES`/`NO`, `Y`/`N`, `true`/`false`, `T`/`F` or `1`/`0`, in any case.
    ///
    /// These are the spellings Foundation's `bool(forKey:)` reads as the Boolean they name (measured on Linux
    /// with a launch argument `-key value`), and the ones SwiftyUserDefaults reads. Nothing else, not even
    /// surrounding spaces: Foundation also calls any text starting with `Y`, `y`, `T` or `t` true (`"tomato"`),
    /// any other text starting with a nonzero integer true (`"2"`, `"42abc"`) and the rest false (`"maybe"`),
    /// which would turn a typo into a setting.
    @usableFromInline
    package static func bool(fromText text: String) -> Bool? {
        switch text.lowercased() {
        case "yes", "y", "true", "t", "1": true
        case "no", "n", "false", "f", "0": false
        default: nil
        }
    }

    /// The integer `text` spells in decimal (an optional sign, then digits), if it fits in `Integer`.
    ///
    /// `"3.0"`, `" 3"` and `"0x10"` are not integers, and `"300"` is not an `Int8`.
    @usableFromInline
    package static func integer<Integer: FixedWidthInteger>(fromText text: String, as _: Integer.Type) -> Integer? {
        Integer(text)
    }

    /// The `<integer>` `text` spells: `.integer`, or `.unsignedInteger` above `Int64.max` (as `UInt64` values
    /// are stored).
    package static func integer(fromText text: String) -> PropertyListValue? {
        if let signed = Int64(text) { return .integer(signed) }
        return UInt64(text).map(PropertyListValue.unsignedInteger)
    }

    /// The number `text` spells: decimal or exponent notation, `inf`, `infinity` or `nan` (Swift's `Double`
    /// syntax), with no surrounding spaces; `"-0.0"` keeps its sign.
    @usableFromInline
    package static func double(fromText text: String) -> Double? {
        Double(text)
    }

    /// The `Decimal` `text` spells exactly, such as `"19.99"`, read without a locale.
    package static func decimal(fromText text: String) -> Decimal? {
        let scanner = Scanner(string: text)
        scanner.locale = Locale(identifier: "en_US_POSIX")
        guard let value = scanner.scanDecimal(), scanner.isAtEnd else { return nil }
        return value
    }

    /// The date `text` spells: ISO 8601 (`2026-11-21T08:26:05.25Z`, `…+01:00`, a space for the `T`), or the
    /// way macOS prints dates (`2026-11-21 08:26:05 +0000`).
    package static func date(fromText text: String) -> Date? {
        var normalized = text
        // macOS puts a space before the zone; ISO 8601 does not.
        if let space = normalized.range(of: " +", options: .backwards)
            ?? normalized.range(of: " -", options: .backwards),
            normalized.distance(from: normalized.startIndex, to: space.lowerBound) > 10
        {
            normalized.remove(at: space.lowerBound)
        }
        return PreciseTimestamp.date(from: normalized)
    }

    /// The bytes of hexadecimal text such as `0a1bff`, `0x0a1b` or `<0a1b ff>` (spaces ignored).
    package static func data(fromHex text: String) -> Data? {
        var digits = text.filter { !$0.isWhitespace }
        if digits.hasPrefix("<"), digits.hasSuffix(">") { digits = String(digits.dropFirst().dropLast()) }
        if digits.hasPrefix("0x") { digits = String(digits.dropFirst(2)) }
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.utf8.count / 2)
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return Data(bytes)
    }

    /// The URL `text` spells: an absolute URL, or an absolute path as a file URL.
    ///
    /// Either may be in JSON quotes, as sindresorhus/Defaults stores URLs. Empty text is no URL.
    package static func url(fromText text: String) -> URL? {
        let text = unquotedJSONString(text) ?? text
        guard !text.isEmpty else { return nil }
        if text.hasPrefix("/") { return URL(fileURLWithPath: text) }
        return URL(string: text)
    }

    /// The UUID `text` spells, such as `E621E1F8-C36C-495A-93FC-0C247A3E6E5F`, bare or in JSON quotes.
    package static func uuid(fromText text: String) -> UUID? {
        UUID(uuidString: unquotedJSONString(text) ?? text)
    }

    /// The string inside a JSON string literal such as `"\"dark\""`, or `nil` if `text` is not one.
    ///
    /// Other defaults libraries store enums, URLs and UUIDs this way.
    package static func unquotedJSONString(_ text: String) -> String? {
        guard text.utf8.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") else { return nil }
        return try? JSONDecoder().decode(String.self, from: Data(text.utf8))
    }

    /// The value of property-list text: an old-style array `(a, b)`, dictionary `{ k = v; }` or data
    /// `<0a1b>`, or an XML property list; `nil` for any other text.
    ///
    /// Only text that starts (after white space) with `(`, `{` or `<` counts, as macOS's `defaults` reads a
    /// value: Foundation would otherwise read any bare word as a string.
    package init?(propertyListText text: String) {
        guard let first = text.unicodeScalars.first(where: { !CharacterSet.whitespacesAndNewlines.contains($0) }),
            first == "(" || first == "{" || first == "<"
        else { return nil }
        self.init(propertyListData: Data(text.utf8))
    }

    /// The value of a property list in any format Foundation reads (XML, binary or old-style): the entry point
    /// of every property-list parse.
    ///
    /// XML as TypedDefaults, Foundation, Python and `defaults` write it is read by ``PropertyListXMLReader``, and
    /// binary by ``BinaryPropertyListReader``, without Foundation's objects; what the XML reader leaves, and
    /// old-style text, go to ``foundationReading(of:)``.
    package init?(propertyListData data: Data) {
        if data.first == UInt8(ascii: "<"), let value = PropertyListXMLReader.value(from: data) {
            self = value
        } else if data.starts(with: Array("bplist00".utf8)) {
            guard let reader = try? BinaryPropertyListReader(data),
                let value = try? reader.tree(maximumNesting: PropertyListXMLReader.maximumNesting).value
            else { return nil }
            self = value
        } else if let value = Self.foundationReading(of: data) {
            self = value
        } else {
            return nil
        }
    }

    /// The array or dictionary JSON text spells, such as `["a","b"]`; `nil` for a bare number, string or
    /// `null`, and for JSON holding `null`.
    package init?(jsonText text: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) else { return nil }
        self.init(foundationObject: object)
    }

    /// A value typed with no type given: the value of property-list text, else the text as a string.
    ///
    /// `3` is the string `"3"`, `(a, b)` an array of two strings, as macOS's `defaults write` stores them.
    package static func plain(_ text: String) -> PropertyListValue {
        PropertyListValue(propertyListText: text) ?? .string(text)
    }

    /// The first reading of `text` that `read` accepts, for text whose type only the reader knows.
    ///
    /// The readings, in order: the value of property-list text, so that `(a, b)` is an array as in
    /// ``plain(_:)``; the string itself, which each type reads by its text rule above; and the array or
    /// dictionary of JSON text, for text that is not property-list text. A number or Boolean is read from its
    /// own spelling only, never from quotes (`"3"`) or a bare JSON number, so it means what it means to the
    /// `defaults` tool and in a stored string.
    package static func firstReading<Result>(
        ofText text: String,
        _ read: (PropertyListValue) -> Result?
    ) -> Result? {
        let structured = PropertyListValue(propertyListText: text)
        if let structured, let result = read(structured) { return result }
        if let result = read(.string(text)) { return result }
        if structured == nil, let json = PropertyListValue(jsonText: text) { return read(json) }
        return nil
    }
}
