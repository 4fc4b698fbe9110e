import Foundation
import TypedDefaults

/// One value the round-trip check writes through an adapter and expects back exactly.
struct ValueProbe: Sendable {
    /// The key's name, which says what the value is.
    let key: String
    /// The stored form the key's bridge makes of the value.
    let stored: PropertyListValue?
    /// Writes the value through `adapter`.
    let write: @Sendable (DefaultsAdapter<ConformanceKeys>) throws(DefaultsError) -> Void
    /// The stored form of what `adapter` reads back for the key.
    let readBack: @Sendable (DefaultsAdapter<ConformanceKeys>) -> PropertyListValue?

    init<Value: DefaultsSerializable & Sendable>(_ name: String, _ value: Value, default defaultValue: Value) {
        let key = Key<Value>("conformance.\(name)", default: defaultValue)
        self.key = key.name
        // Every value below has a stored form; one without would fail the check, which is the right outcome.
        self.stored = try? Value.storedForm(of: value)
        write = { adapter throws(DefaultsError) in try adapter.set(value, for: key) }
        readBack = { adapter in try? Value.storedForm(of: adapter[key: key]) }
    }
}

/// The keys the kit's adapters use; the kit names most keys as it goes.
struct ConformanceKeys: Sendable {
    var counter: Key<Int> { .init("conformance.counter", default: 0) }
}

extension ValueProbe {
    static let precomposed = "\u{E9}"
    static let decomposed = "e\u{301}"

    /// Values of every kind, with the edges a store is likeliest to bend: canonically equivalent strings with
    /// different bytes, signed zeros, NaN, infinities, subnormals, integer extremes, sub-second dates, empty
    /// and binary data, nesting.
    static let catalogue: [ValueProbe] = [
        // Strings: Swift's `==` takes the first two to be equal; a store must keep their bytes apart.
        ValueProbe("string.precomposed", precomposed, default: ""),
        ValueProbe("string.decomposed", decomposed, default: ""),
        ValueProbe("string.emoji", "👩‍👩‍👧‍👦🇫🇷", default: ""),
        ValueProbe("string.empty", "", default: "unset"),
        ValueProbe("string.markup", " <&>\"' \t\r\n ", default: ""),
        ValueProbe("string.long", String(repeating: "ab\u{E9}", count: 2_000), default: ""),
        // Integers.
        ValueProbe("int.min", Int.min, default: 0),
        ValueProbe("int.max", Int.max, default: 0),
        ValueProbe("int.zero", 0, default: 1),
        ValueProbe("uint64.max", UInt64.max, default: 0),
        ValueProbe("bool.false", false, default: true),
        // Doubles.
        ValueProbe("double.negativeZero", -0.0, default: 1),
        ValueProbe("double.zero", 0.0, default: 1),
        ValueProbe("double.nan", Double.nan, default: 1),
        ValueProbe("double.infinity", Double.infinity, default: 1),
        ValueProbe("double.negativeInfinity", -Double.infinity, default: 1),
        ValueProbe("double.subnormal", Double.leastNonzeroMagnitude, default: 1),
        ValueProbe("double.negativeSubnormal", -Double.leastNormalMagnitude / 3, default: 1),
        ValueProbe("double.greatest", Double.greatestFiniteMagnitude, default: 1),
        ValueProbe("double.tenth", 0.1, default: 1),
        ValueProbe("float.negativeZero", Float(-0.0), default: 1),
        // Dates, to the bit.
        ValueProbe("date.fraction", Date(timeIntervalSinceReferenceDate: 0.123_456_789), default: .distantPast),
        ValueProbe("date.beforeReference", Date(timeIntervalSinceReferenceDate: -1.5), default: .distantPast),
        ValueProbe("date.microseconds", Date(timeIntervalSince1970: 1_700_000_000.000_001), default: .distantPast),
        // Data.
        ValueProbe("data.empty", Data(), default: Data([1])),
        ValueProbe("data.bytes", Data((0...255).map { UInt8($0) }), default: Data()),
        // Collections, nested.
        ValueProbe("array.strings", [precomposed, decomposed, "", "👍"], default: []),
        ValueProbe("array.doubles", [-0.0, .nan, .infinity, Double.leastNonzeroMagnitude], default: []),
        ValueProbe("array.nested", [[Int.min], [], [0, Int.max]], default: []),
        ValueProbe("array.empty", [String](), default: ["unset"]),
        ValueProbe(
            "dictionary.nested",
            ["outer": ["inner": [1, 2]], "empty": [:]] as [String: [String: [Int]]],
            default: [:]
        ),
        // Stored forms written as they are, as `Key<PropertyListValue?>` and `modifyStoredValues` do.
        ValueProbe("raw.negativeZero", PropertyListValue.double(-0.0), default: .bool(false)),
        ValueProbe("raw.nan", PropertyListValue.double(.nan), default: .bool(false)),
        ValueProbe("raw.subnormal", PropertyListValue.double(-.leastNonzeroMagnitude), default: .bool(false)),
        ValueProbe("raw.integerMin", PropertyListValue.integer(.min), default: .bool(false)),
        ValueProbe("raw.unsignedMax", PropertyListValue.unsignedInteger(.max), default: .bool(false)),
        ValueProbe("raw.bool", PropertyListValue.bool(true), default: .bool(false)),
        ValueProbe(
            "raw.wholeSecondDate",
            PropertyListValue.date(Date(timeIntervalSinceReferenceDate: -86_400)),
            default: .bool(false)
        ),
        ValueProbe(
            "raw.nested",
            PropertyListValue.array([
                .dictionary([precomposed: .string(decomposed), "data": .data(Data([0, 0xFF])), "zero": .double(-0.0)]),
                .array([]), .dictionary([:]), .string(""),
            ]),
            default: .bool(false)
        ),
    ]
}
