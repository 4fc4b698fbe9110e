import Foundation

/// A value as a suite stores it: the property-list types, and nothing else.
///
/// Bridges turn your values into a `PropertyListValue` and back. Because this enum can only hold what a
/// property list can hold, a value that Foundation would reject (and, on Linux, crash on) can never
/// reach the storage layer.
///
/// ## Limits
/// A write checks the whole value first and throws ``DefaultsError/valueNotStorable(key:type:reason:)``,
/// changing nothing, if a reader could not get it back exactly:
/// - arrays and dictionaries nested more than ``maximumDepth`` (128) levels deep;
/// - a value taking more than ``maximumEncodedSize`` (16 MiB) in the file;
/// - a string or key with a control character other than tab, line feed and carriage return, or with
///   `U+FFFE` or `U+FFFF` (XML cannot hold them);
/// - a string or key that starts with `U+FEFF` (Foundation's reader drops it);
/// - a `.date` before 0001-01-01 or after 9999-12-31 (or not finite);
/// - a `.double` NaN other than `Double.nan` (a sign or a payload, which every reader reads back as `nan`).
///
/// ## Usage
/// ```swift
/// struct FrogBridge: DefaultsBridge {
///     func serialize(_ frog: Frog) -> PropertyListValue? { .string(frog.name) }
///     func deserialize(_ stored: PropertyListValue) -> Frog? {
///         stored.stringValue.map(Frog.init(name:))
///     }
/// }
/// ```
public enum PropertyListValue: Sendable, Hashable {
    /// A `<string>`.
    case string(String)
    /// A `<true/>` or `<false/>`.
    case bool(Bool)
    /// An `<integer>` in the range of `Int64`.
    case integer(Int64)
    /// An `<integer>` above `Int64.max`.
    case unsignedInteger(UInt64)
    /// A `<real>`. On Linux the XML writer stores `-0.0` as `0.0`; ``FloatingPointBridge`` works around that.
    case double(Double)
    /// A `<data>` blob.
    case data(Data)
    /// A `<date>`. On Linux the XML writer keeps whole seconds only; ``DateBridge`` stores dates as text instead.
    case date(Date)
    /// An `<array>`.
    case array([PropertyListValue])
    /// A `<dict>` with string keys.
    case dictionary([String: PropertyListValue])
}

extension PropertyListValue {
    /// The string, if this is a `.string`.
    @inlinable
    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// A short description for diagnostics, such as `string "abc"` or `array of 3 elements`.
    public var summary: String {
        switch self {
        case .string(let value):
            let shown = value.count > 60 ? String(value.prefix(60)) + "…" : value
            return "string \(String(reflecting: shown))"
        case .bool(let value): return "bool \(value)"
        case .integer(let value): return "integer \(value)"
        case .unsignedInteger(let value): return "integer \(value)"
        case .double(let value): return "real \(value)"
        case .data(let value): return "data of \(value.count) bytes"
        case .date(let value): return "date \(value)"
        case .array(let value): return "array of \(value.count) elements"
        case .dictionary(let value): return "dictionary of \(value.count) entries"
        }
    }
}

extension PropertyListValue {
    /// The deepest a stored value may nest arrays and dictionaries: 128 levels.
    ///
    /// `.array([.dictionary(["a": .integer(1)])])` nests 2 levels; a string or a number nests none. Foundation's
    /// property-list reader refuses a file nested deeper than 512 levels (the suite's own dictionary counts as
    /// one), so a deeper value would be written and then lost with the rest of the suite in every later
    /// process. Writes of deeper values throw ``DefaultsError/valueNotStorable(key:type:reason:)`` instead.
    ///
    /// ```swift
    /// var value = PropertyListValue.integer(1)
    /// for _ in 0..<PropertyListValue.maximumDepth { value = .array([value]) }
    /// try Defaults.set(value, for: Key<PropertyListValue?>("deep"))       // stored
    /// try Defaults.set(.array([value]), for: Key<PropertyListValue?>("deep"))   // throws
    /// ```
    public static let maximumDepth = 128

    /// The most bytes one stored value may take in the suite's file: 16 MiB.
    ///
    /// The suite's file is read whole when a process opens the suite and again whenever another process
    /// changes it; Foundation reads 16 MiB of small elements in about half a second, and a bigger value
    /// belongs in a file of its own. The size is an upper estimate of the value's XML: every number counts as
    /// its longest form, and strings, keys, Base64 lines and indentation count as written. Writes of larger
    /// values throw ``DefaultsError/valueNotStorable(key:type:reason:)``.
    ///
    /// ```swift
    /// let blob = Data(count: 12 << 20)   // 16 MiB as Base64
    /// try Defaults.set(blob, for: Key<Data?>("blob"))   // throws
    /// ```
    public static let maximumEncodedSize = 16 << 20

    /// Throws if the value has no exact, readable form in a suite's file.
    ///
    /// Every write goes through this check, so what a suite stores is what every later reader gets back:
    /// - Strings and keys hold only characters XML 1.0 allows: no control characters other than tab, line feed
    ///   and carriage return, and no `U+FFFE` or `U+FFFF`. Foundation writes them anyway, and Python's
    ///   `plistlib`, the `defaults` tool and every other XML reader then reject the whole file.
    /// - No string or key starts with `U+FEFF`: Foundation's reader drops it there, written as the character
    ///   or as `&#xFEFF;` alike (elsewhere in a string it is kept).
    /// - Dates lie in the years 1 to 9999, which Python's `plistlib` reads (it rejects the whole file otherwise).
    /// - A NaN is the plain `Double.nan`: XML writes every NaN as `nan`, which every reader reads as that one.
    /// - Arrays and dictionaries nest at most ``maximumDepth`` levels.
    /// - No dictionary holds only `CF$UID` with a number, which Foundation's reader takes for a keyed archiver's
    ///   reference, and then the whole file for damaged (``checkStorable(underKey:)`` applies this to the suite's
    ///   own dictionary).
    /// - The value takes at most ``maximumEncodedSize`` bytes in the file.
    ///
    /// The check never recurses deeper than ``maximumDepth``, allocates nothing unless it throws, and costs
    /// no more than a switch for a number or a Boolean.
    ///
    /// ```swift
    /// try PropertyListValue.string("\u{FEFF}title").checkStorable()   // throws: starts with U+FEFF
    /// ```
    ///
    /// - Returns: The estimate of the value's size in the file that ``maximumEncodedSize`` limits.
    @discardableResult
    func checkStorable() throws(Unstorable) -> Int {
        var size = 0
        try check(level: 1, size: &size)
        return size
    }

    /// ``checkStorable()`` for the value stored under `key` in a suite's dictionary: a number under `CF$UID` is
    /// refused too, since the suite's dictionary holds it alone once its other keys are removed.
    ///
    /// ```swift
    /// try PropertyListValue.integer(1).checkStorable(underKey: "CF$UID")   // throws
    /// ```
    @discardableResult
    @inline(__always)
    func checkStorable(underKey key: String) throws(Unstorable) -> Int {
        // In this order, and inlined: every write passes here, and comparing strings costs more than the rest.
        if isNumber, key.utf8.count == 6, key == "CF$UID" { throw Self.archiverReferenceKey }
        return try checkStorable()
    }

    private static var archiverReferenceKey: Unstorable {
        Unstorable(
            "a number under the key CF$UID: a suite left holding only this key is how a property list writes a "
                + "keyed archiver's reference, which Foundation would read back instead of the suite's values"
        )
    }

    private var isNumber: Bool {
        switch self {
        case .integer, .unsignedInteger, .double: true
        default: false
        }
    }

    private static var archiverReference: Unstorable {
        Unstorable(
            "a dictionary holding only CF$UID with a number is how a property list writes a keyed archiver's "
                + "reference: Foundation would read it back as one, and the suite's whole file as damaged"
        )
    }

    /// Checks the value as nested `level` deep (1 for the stored value itself), adding its estimated size.
    private func check(level: Int, size: inout Int) throws(Unstorable) {
        switch self {
        case .bool:
            size += 8
        case .integer, .unsignedInteger:
            size += 39  // <integer>-9223372036854775808</integer>
        case .double(let number):
            // Every reader reads `nan` as the plain positive NaN: a sign or a payload would be lost.
            if number.isNaN, number.bitPattern != Double.nan.bitPattern {
                throw Unstorable(
                    "the real \(number.debugDescription) (bits \(String(number.bitPattern, radix: 16))) is a NaN with a "
                        + "sign or a payload, which a property-list <real> cannot hold (every reader reads it as "
                        + "plain nan); store it through a Key<Double>, which keeps every bit"
                )
            }
            size += 37  // <real>-2.2250738585072014e-308</real>
        case .date(let date):
            // NaN fails both comparisons.
            let seconds = date.timeIntervalSinceReferenceDate.rounded(.down)
            guard seconds >= Self.earliestDate && seconds <= Self.latestDate else {
                throw Unstorable(
                    "the date \(date.timeIntervalSinceReferenceDate) seconds from 2001 is not between "
                        + "0001-01-01 and 9999-12-31, the years a property-list <date> holds for every reader"
                )
            }
            // A fraction would be kept in memory and lost in the file: refused, so every reader agrees.
            guard seconds == date.timeIntervalSinceReferenceDate else {
                throw Unstorable(
                    "the date \(date.timeIntervalSinceReferenceDate) seconds from 2001 has a fraction of a second, "
                        + "which a property-list <date> cannot hold (it keeps whole seconds); round it, or store it "
                        + "through a Key<Date>, which keeps every bit"
                )
            }
            size += 33  // <date>2001-01-01T00:00:00Z</date>
        case .string(let text):
            let length = try Self.checkText(text, what: "the string")
            size += 17 + length
        case .data(let data):
            // Base64 in lines of 68 characters, each indented one level deeper than the tag.
            let encoded = (data.count + 2) / 3 * 4
            size += 14 + level + encoded + (encoded + 67) / 68 * (level + 1)
        case .array(let items):
            guard level <= Self.maximumDepth else { throw Self.tooDeep }
            size += 16 + level
            for item in items {
                size += level + 2
                try item.check(level: level + 1, size: &size)
            }
        case .dictionary(let entries):
            guard level <= Self.maximumDepth else { throw Self.tooDeep }
            if entries.count == 1, entries["CF$UID"]?.isNumber == true { throw Self.archiverReference }
            size += 14 + level
            for (name, item) in entries {
                let length = try Self.checkText(name, what: "the dictionary key")
                size += 2 * level + 15 + length
                try item.check(level: level + 1, size: &size)
            }
        }
        if size > Self.maximumEncodedSize { throw Self.tooLarge }
    }

    /// Why a value has no exact, readable form in a suite's file, in words a user can act on.
    ///
    /// What ``checkStorable()`` throws; the adapter and the batches turn it into
    /// ``DefaultsError/valueNotStorable(key:type:reason:)``.
    struct Unstorable: Error, Sendable, CustomStringConvertible {
        let description: String

        init(_ description: String) {
            self.description = description
        }
    }

    /// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z: Python's `plistlib` rejects a whole file with a
    /// `<date>` outside four-digit years, and the writer has no text for an infinite or NaN date.
    private static let earliestDate: Double = -63_113_904_000
    private static let latestDate: Double = 252_423_993_599

    private static var tooDeep: Unstorable {
        Unstorable(
            "the value nests arrays and dictionaries more than \(maximumDepth) levels deep "
                + "(PropertyListValue.maximumDepth); Foundation could not read the file back"
        )
    }

    private static var tooLarge: Unstorable {
        Unstorable(
            "the value would take more than \(maximumEncodedSize) bytes in the property-list file "
                + "(PropertyListValue.maximumEncodedSize); store it in a file of its own"
        )
    }

    /// Throws if `text` cannot be a string or key in a property list; returns its length in the file.
    @discardableResult
    static func checkText(_ text: String, what: String) throws(Unstorable) -> Int {
        let scan = text.utf8.withContiguousStorageIfAvailable { TextScan($0) } ?? TextScan(text.utf8)
        guard let problem = scan.problem else { return scan.escapedLength }
        let code = "U+" + String(problem, radix: 16, uppercase: true)
        // A short excerpt: the text may be megabytes long.
        let excerpt = String(reflecting: text.count > 60 ? String(text.prefix(60)) + "…" : text)
        if problem == 0xFEFF {
            throw Unstorable(
                "\(what) \(excerpt) starts with \(code) (a byte order mark), which Foundation's property-list "
                    + "reader drops"
            )
        }
        throw Unstorable("\(what) \(excerpt) contains \(code), which an XML property list cannot hold")
    }
}

/// One pass over a string's UTF-8 bytes: the first scalar a property list cannot carry, and the length the
/// XML writer gives the string (`&`, `<`, `>` and carriage returns become references).
private struct TextScan {
    var escapedLength: Int
    var problem: UInt32?

    init<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        escapedLength = bytes.count
        problem = nil
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "&"), UInt8(ascii: "\r"):
                escapedLength += 4
            case UInt8(ascii: "<"), UInt8(ascii: ">"):
                escapedLength += 3
            case UInt8(ascii: "\t"), UInt8(ascii: "\n"):
                break
            case 0..<0x20:
                problem = UInt32(byte)
                return
            case 0xEF:
                // U+FEFF is EF BB BF, U+FFFE and U+FFFF are EF BF BE and EF BF BF.
                let second = bytes.index(after: index)
                guard second != bytes.endIndex else { break }
                let third = bytes.index(after: second)
                guard third != bytes.endIndex else { break }
                switch (bytes[second], bytes[third]) {
                case (0xBB, 0xBF) where index == bytes.startIndex:
                    problem = 0xFEFF
                    return
                case (0xBF, 0xBE), (0xBF, 0xBF):
                    problem = 0xFFFE + UInt32(bytes[third] - 0xBE)
                    return
                default:
                    break
                }
            default:
                break
            }
            index = bytes.index(after: index)
        }
    }
}
