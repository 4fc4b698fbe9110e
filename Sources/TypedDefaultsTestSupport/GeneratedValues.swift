import Foundation
import TypedDefaults

/// A small, fast, seeded random number generator (SplitMix64): the same seed gives the same numbers in every
/// process, so a child process can regenerate what its parent wrote.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates the generator for `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A number in `0..<bound`, computed the same way whatever the standard library does.
    public mutating func below(_ bound: Int) -> Int {
        Int(truncatingIfNeeded: next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// A number in `0..<bound`, for bounds past 32-bit `Int` (watchOS).
    public mutating func below(_ bound: UInt64) -> UInt64 {
        next().multipliedFullWidth(by: bound).high
    }

    /// `true` with probability `percent`/100.
    public mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    /// One of `choices`.
    public mutating func pick<T>(_ choices: [T]) -> T { choices[below(choices.count)] }
}

/// One generated top-level entry: its key, its value, and, for a value the library must refuse, a phrase
/// the refusal's reason must contain.
public struct GeneratedEntry: Sendable {
    /// The key the value is stored under.
    public var key: String
    /// The value.
    public var value: PropertyListValue
    /// `nil` if the value must be stored and come back exactly; else what the refusal must mention.
    public var refusal: String?

    /// Creates an entry.
    public init(key: String, value: PropertyListValue, refusal: String? = nil) {
        self.key = key
        self.value = value
        self.refusal = refusal
    }
}

/// Seeded random trees of ``PropertyListValue``s with every scalar kind at its extremes and hostile strings
/// and keys, for round trips through real files, new processes and other readers.
///
/// ```swift
/// for entry in GeneratedValues.entries(seed: 7, count: 40) { print(entry.key, entry.value.summary) }
/// ```
public enum GeneratedValues {
    /// `count` entries for `seed`; about one in eight holds something the library must refuse.
    public static func entries(seed: UInt64, count: Int) -> [GeneratedEntry] {
        var random = SeededGenerator(seed: seed)
        return (0..<count)
            .map { index in
                let key = "\(seed).\(index)." + text(&random, long: false)
                var budget = 120
                var value = tree(&random, depth: random.below(6), budget: &budget)
                var refusal: String?
                if random.chance(12) {
                    let poison = poisonedValue(&random)
                    refusal = poison.refusal
                    // Somewhere inside a few levels of containers, beside the ordinary tree.
                    var wrapped = poison.value
                    for _ in 0..<random.below(4) {
                        wrapped =
                            random.chance(50) ? .array([wrapped]) : .dictionary([text(&random, long: false): wrapped])
                    }
                    value = random.chance(50) ? .array([value, wrapped]) : .dictionary(["tree": value, "x": wrapped])
                }
                return GeneratedEntry(key: key, value: value, refusal: refusal)
            }
    }

    /// Line ends and byte order marks in every position, in values, keys and elements: the ones XML readers
    /// change (a leading U+FEFF is refused; carriage returns must come back as they were).
    public static let fixedEntries: [GeneratedEntry] = [
        GeneratedEntry(key: "cr.lone", value: .string("a\rb")),
        GeneratedEntry(key: "cr.crlf", value: .string("a\r\nb")),
        GeneratedEntry(key: "cr.lfcr", value: .string("\n\r")),
        GeneratedEntry(key: "cr.leading", value: .string("\rstart")),
        GeneratedEntry(key: "cr.trailing", value: .string("end\r")),
        GeneratedEntry(key: "cr.only", value: .string("\r")),
        GeneratedEntry(key: "cr.many", value: .string("\r\r\n\r\n\n\r")),
        GeneratedEntry(key: "bom.middle", value: .string("a\u{FEFF}b")),
        GeneratedEntry(key: "bom.trailing", value: .string("ab\u{FEFF}")),
        GeneratedEntry(key: "bom.afterSpace", value: .string(" \u{FEFF}")),
        GeneratedEntry(key: "bom.afterLineEnd", value: .string("\r\u{FEFF}")),
        GeneratedEntry(key: "literal.references", value: .string("&#xD;&#xFEFF;&amp;&#13;")),
        GeneratedEntry(key: "key\r\nwith\u{FEFF}", value: .string("value")),
        GeneratedEntry(key: "array", value: .array([.string("\r\n"), .string("x\u{FEFF}"), .string("\r")])),
        GeneratedEntry(
            key: "dictionary",
            value: .dictionary(["k\r": .string("v\r\n"), "a\u{FEFF}": .string("\n"), "\r": .string("")])
        ),
        GeneratedEntry(key: "bom.leading", value: .string("\u{FEFF}abc"), refusal: "U+FEFF"),
        GeneratedEntry(key: "bom.only", value: .string("\u{FEFF}"), refusal: "U+FEFF"),
        GeneratedEntry(key: "bom.double", value: .string("\u{FEFF}\u{FEFF}x"), refusal: "U+FEFF"),
        GeneratedEntry(key: "\u{FEFF}bom.key", value: .integer(1), refusal: "U+FEFF"),
        GeneratedEntry(key: "bom.element", value: .array([.string("ok"), .string("\u{FEFF}x")]), refusal: "U+FEFF"),
        GeneratedEntry(key: "bom.nestedKey", value: .dictionary(["\u{FEFF}k": .integer(1)]), refusal: "U+FEFF"),
    ]

    /// Arrays and dictionaries nested `depth` levels deep (alternately), around a hostile string.
    ///
    /// Built without recursion, so any depth works; take one apart with ``dismantle(_:)``.
    public static func nested(depth: Int, arraysOnly: Bool = false) -> PropertyListValue {
        var value = PropertyListValue.string("deep & <inner>\r\n\u{FEFF}")
        for level in 0..<depth {
            value = arraysOnly || level % 2 == 0 ? .array([value]) : .dictionary(["level\r\(level)": value])
        }
        return value
    }

    /// Releases a value level by level: letting a 100,000-deep value go in one piece recurses once per level
    /// and overflows the stack.
    public static func dismantle(_ value: inout PropertyListValue) {
        var pending = [value]
        value = .bool(false)
        while let next = pending.popLast() {
            switch next {
            case .array(let items): pending.append(contentsOf: items)
            case .dictionary(let entries): pending.append(contentsOf: entries.values)
            default: break
            }
        }
    }

    // MARK: Generation

    private static func tree(_ random: inout SeededGenerator, depth: Int, budget: inout Int) -> PropertyListValue {
        budget -= 1
        guard depth > 0, budget > 0, random.chance(60) else { return scalar(&random) }
        let width = random.below(7)
        if random.chance(50) {
            var items: [PropertyListValue] = []
            for _ in 0..<width { items.append(tree(&random, depth: depth - 1, budget: &budget)) }
            return .array(items)
        }
        var entries: [String: PropertyListValue] = [:]
        for _ in 0..<width {
            let name = text(&random, long: false)
            entries[name] = tree(&random, depth: depth - 1, budget: &budget)
        }
        return .dictionary(entries)
    }

    private static func scalar(_ random: inout SeededGenerator) -> PropertyListValue {
        switch random.below(8) {
        case 0:
            return .bool(random.chance(50))
        case 1:
            let extremes: [Int64] = [0, 1, -1, .min, .max, .min + 1, .max - 1, (1 << 53) + 1, -(1 << 31)]
            return .integer(random.chance(50) ? random.pick(extremes) : Int64(bitPattern: random.next()))
        case 2:
            let extremes: [UInt64] = [UInt64(Int64.max) + 1, .max, .max - 1]
            return .unsignedInteger(random.chance(50) ? random.pick(extremes) : random.next() | (1 << 63))
        case 3:
            let extremes: [Double] = [
                0, -0.0, .infinity, -.infinity, .nan, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
                .leastNormalMagnitude, .leastNormalMagnitude.nextDown, .greatestFiniteMagnitude,
                -.greatestFiniteMagnitude, 0.1, Double(bitPattern: 0x000F_FFFF_FFFF_FFFF), 9_007_199_254_740_992, 1e16,
                123.456e-300, 0x1p-1070,
            ]
            if random.chance(60) { return .double(random.pick(extremes)) }
            let bits = Double(bitPattern: random.next())
            return .double(bits.isNaN ? 1.5 : bits)
        case 4:
            // Whole seconds: a <date> keeps no more. From 0001-01-01 to 9999-12-31, Python's range.
            let extremes: [Double] = [0, -63_113_904_000, 252_423_993_599, -978_307_200, 1]
            let seconds =
                random.chance(30) ? random.pick(extremes) : Double(random.below(UInt64(6_311_390_400))) - 3_155_695_200
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case 5:
            let count = random.chance(10) ? 5000 : random.below(80)
            return .data(Data((0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }))
        default:
            return .string(text(&random, long: random.chance(5)))
        }
    }

    /// Pieces of hostile text: XML metacharacters, line ends, byte order marks (never leading), combining
    /// marks, emoji, noncharacters, bidirectional controls.
    private static let pieces: [String] = [
        "a", "Z", " ", "  ", "0", "true", "<", ">", "&", "&amp;", "&#xD;", "]]>", "<![CDATA[x]]>", "<!-- c -->",
        "\"", "'", "\\", "%", "\r", "\n", "\r\n", "\n\r", "\t", "\u{FEFF}", "\u{FEFF}\u{FEFF}", "e\u{301}", "\u{301}",
        "\u{E9}", "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}", "\u{1F1EB}\u{1F1F7}", "\u{10FFFF}", "\u{FFFD}",
        "\u{85}", "\u{2028}", "\u{2029}", "\u{7F}", "\u{80}", "\u{9F}", "\u{200B}", "\u{FFEF}", "\u{202E}",
        "\u{20000}", "\u{FEFE}", "\u{FFFC}", "\u{D7FF}", "\u{E000}",
        String(Unicode.Scalar(0xFDD0)!), String(Unicode.Scalar(0x1FFFE)!), String(Unicode.Scalar(0x10FFFE)!),
    ]

    /// A string of hostile pieces that the library must store; it never starts with U+FEFF.
    private static func text(_ random: inout SeededGenerator, long: Bool) -> String {
        var result = ""
        for _ in 0..<random.below(long ? 4000 : 9) { result += random.pick(pieces) }
        if result.unicodeScalars.first == "\u{FEFF}" { result = "x" + result }
        return result
    }

    /// A value the library must refuse, and what the refusal must mention.
    private static func poisonedValue(_ random: inout SeededGenerator) -> (value: PropertyListValue, refusal: String) {
        switch random.below(7) {
        case 5: (.date(Date(timeIntervalSinceReferenceDate: .nan)), "the date")
        case 6: (.date(Date(timeIntervalSinceReferenceDate: 252_423_993_600)), "9999-12-31")
        case 0: (.string("\u{FEFF}" + text(&random, long: false)), "U+FEFF")
        case 1: (.dictionary(["\u{FEFF}key": .integer(1)]), "U+FEFF")
        case 2: (.string("bell\u{7}" + text(&random, long: false)), "U+7")
        case 3: (.array([.string("x" + String(Unicode.Scalar(0xFFFF)!))]), "U+FFFF")
        default: (nested(depth: PropertyListValue.maximumDepth + 1, arraysOnly: true), "maximumDepth")
        }
    }

    // MARK: Comparison

    /// Where `actual` differs from `expected`, exactly: strings and keys scalar by scalar (not by canonical
    /// equivalence), reals and dates to the bit (NaN matches NaN), integers in the same case.
    public static func mismatches(
        expected: PropertyListValue,
        actual: PropertyListValue,
        at path: String = "value"
    ) -> [String] {
        switch (expected, actual) {
        case (.string(let lhs), .string(let rhs)):
            return lhs.unicodeScalars.elementsEqual(rhs.unicodeScalars)
                ? [] : ["\(path): \(scalars(lhs)) became \(scalars(rhs))"]
        case (.double(let lhs), .double(let rhs)):
            return lhs.isExactly(rhs)
                ? [] : ["\(path): real \(lhs) (\(lhs.bitPattern)) became \(rhs) (\(rhs.bitPattern))"]
        case (.date(let lhs), .date(let rhs)):
            return lhs.isExactly(rhs)
                ? []
                : ["\(path): date \(lhs.timeIntervalSinceReferenceDate) became \(rhs.timeIntervalSinceReferenceDate)"]
        case (.array(let lhs), .array(let rhs)):
            guard lhs.count == rhs.count else { return ["\(path): \(lhs.count) elements became \(rhs.count)"] }
            return zip(lhs, rhs).enumerated().flatMap { mismatches(expected: $1.0, actual: $1.1, at: "\(path)[\($0)]") }
        case (.dictionary(let lhs), .dictionary(let rhs)):
            let lhsKeys = lhs.keys.map { Array($0.unicodeScalars) }.sorted { $0.lexicographicallyPrecedes($1) }
            let rhsKeys = rhs.keys.map { Array($0.unicodeScalars) }.sorted { $0.lexicographicallyPrecedes($1) }
            guard lhsKeys == rhsKeys else {
                return ["\(path): keys \(lhsKeys.map(hex)) became \(rhsKeys.map(hex))"]
            }
            return lhs.flatMap { name, value in
                rhs[name].map { mismatches(expected: value, actual: $0, at: "\(path)[\(scalars(name))]") } ?? []
            }
        case (.bool, .bool), (.integer, .integer), (.unsignedInteger, .unsignedInteger), (.data, .data):
            return expected == actual ? [] : ["\(path): \(expected.summary) became \(actual.summary)"]
        default:
            return ["\(path): \(expected.summary) became \(actual.summary)"]
        }
    }

    private static func scalars(_ text: String) -> String { hex(Array(text.unicodeScalars)) }

    private static func hex(_ scalars: [Unicode.Scalar]) -> String {
        "[" + scalars.prefix(40).map { String($0.value, radix: 16) }.joined(separator: " ")
            + (scalars.count > 40 ? " …]" : "]")
    }

    // MARK: Other readers

    /// The value in a form JSON carries exactly, for comparing with what another reader (Python's `plistlib`)
    /// makes of the file: `["s", [scalar values]]`, `["b", Bool]`, `["i", "decimal"]`, `["r", "bits in hex"
    /// or "nan"]`, `["d", "Base64"]`, `["t", seconds since 1970]`, `["a", [...]]`, and `["o", [[key scalar
    /// values, value], ...]]` sorted by key.
    public static func jsonForm(_ value: PropertyListValue) -> Any {
        switch value {
        case .string(let text): ["s", text.unicodeScalars.map { Int($0.value) }]
        case .bool(let flag): ["b", flag]
        case .integer(let number): ["i", String(number)]
        case .unsignedInteger(let number): ["i", String(number)]
        case .double(let number): ["r", number.isNaN ? "nan" : String(number.bitPattern, radix: 16)]
        case .data(let data): ["d", data.base64EncodedString()]
        case .date(let date): ["t", Int64(date.timeIntervalSince1970.rounded(.down))]
        case .array(let items): ["a", items.map(jsonForm)]
        case .dictionary(let entries):
            [
                "o",
                entries.map { (Array($0.key.unicodeScalars.map { Int($0.value) }), $0.value) }
                    .sorted { $0.0.lexicographicallyPrecedes($1.0) }
                    .map { [$0.0, jsonForm($0.1)] as [Any] },
            ]
        }
    }

    /// A Python program that reads the property list at `argv[1]`, turns it into ``jsonForm(_:)`` and compares
    /// it with the JSON at `argv[2]`; it prints `same` or the first difference and exits 1.
    public static let pythonComparison = """
        import base64, datetime, json, plistlib, struct, sys
        sys.setrecursionlimit(100000)
        def form(v):
            if isinstance(v, bool): return ["b", v]
            if isinstance(v, int): return ["i", str(v)]
            if isinstance(v, float): return ["r", "nan" if v != v else format(struct.unpack(">Q", struct.pack(">d", v))[0], "x")]
            if isinstance(v, str): return ["s", [ord(c) for c in v]]
            if isinstance(v, bytes): return ["d", base64.b64encode(v).decode()]
            if isinstance(v, datetime.datetime):
                return ["t", (v.replace(tzinfo=None) - datetime.datetime(1970, 1, 1)) // datetime.timedelta(seconds=1)]
            if isinstance(v, list): return ["a", [form(x) for x in v]]
            if isinstance(v, dict): return ["o", sorted([[ord(c) for c in k], form(x)] for k, x in v.items())]
            raise TypeError(type(v))
        def diff(a, b, path):
            if type(a) != type(b) or (not isinstance(a, list) and a != b): return "%s: %r != %r" % (path, a, b)
            if isinstance(a, list):
                if len(a) != len(b): return "%s: %d items != %d" % (path, len(a), len(b))
                for i, (x, y) in enumerate(zip(a, b)):
                    d = diff(x, y, "%s/%d" % (path, i))
                    if d: return d
            return None
        with open(sys.argv[1], "rb") as f: got = form(plistlib.load(f))
        with open(sys.argv[2]) as f: want = json.load(f)
        d = diff(want, got, "")
        print(d or "same")
        sys.exit(1 if d else 0)
        """
}
