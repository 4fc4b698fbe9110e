#if os(Linux)
import Benchmark
import Foundation
import TypedDefaults

// Reads and writes of each kind of value, as the code a user would write by hand with Foundation next to the
// same operation through TypedDefaults. Pairs are named "Foundation <op>" and "TypedDefaults <op>".
//
// Every suite is seeded (see `SuiteFixture.seed()`) with each key in the form its reader expects: TypedDefaults'
// stored forms for the keys TypedDefaults reads ("date" an ISO 8601 string, "url" an absolute string, "record" a
// JSON string, "mode" the raw value), Foundation's own for the keys the hand-written code reads ("rawDate" a
// native date, "rawURL" what `set(_: URL, forKey:)` stores, "rawRecord" JSON data). Every setup checks that the
// benchmark reads the seeded value, not a default, and every write benchmark checks what it left afterwards.

/// A `Codable` struct of the kind apps keep in defaults.
struct Record: Codable, Equatable, Sendable {
    var id: Int
    var name: String
    var tags: [String]
    var score: Double
    var created: Date
}

extension Record: DefaultsSerializable {}

/// A `String` enum; TypedDefaults stores it as its raw value.
enum Mode: String, Codable {
    case a
    case b
    case c
}

extension Mode: DefaultsSerializable {}

/// The values every suite starts with (besides "k" and "seed0"..."seed9").
enum Seed {
    static let k2 = 4_242
    static let string = "the seeded string value"
    /// "date", as TypedDefaults stores a `Date`.
    static let dateText = "2026-11-21T08:26:05.123456Z"
    static let date = Date(timeIntervalSince1970: 1_795_249_565.123_456)
    /// "rawDate", stored natively; whole seconds, which is what Foundation's XML plist on Linux keeps.
    static let rawDate = Date(timeIntervalSince1970: 1_795_249_565)
    /// A file URL: Foundation's `set(_: URL, forKey:)` on Linux keeps only a URL's path, so the hand-written
    /// code could not store an `https` URL at all.
    static let url = URL(fileURLWithPath: "/var/lib/typed-defaults-bench/profile.json")
    static let record = Record(
        id: 7,
        name: "seeded record",
        tags: ["alpha", "beta", "gamma"],
        score: 0.875,
        created: Date(timeIntervalSince1970: 1_795_249_565.5)
    )
    static let mode = Mode.b
    static let list = (0..<10).map { "list item number \($0)" }

    /// "record", as TypedDefaults stores a `Codable` value: a JSON string with sorted keys.
    static func recordJSON() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(record), as: UTF8.self)
    }

    static func isSeededDate(_ date: Date?, _ expected: Date) -> Bool {
        guard let date else { return false }
        return abs(date.timeIntervalSince(expected)) < 1e-6
    }
}

/// The values write benchmarks cycle through: sixteen of each, so every write changes the stored value.
enum Written {
    static let strings = (0..<16).map { "written string value \($0)" }
    static let dates = (0..<16).map { Seed.date.addingTimeInterval(Double($0 + 1) * 60) }
    static let urls = (0..<16).map { URL(fileURLWithPath: "/var/lib/typed-defaults-bench/profile-\($0).json") }
    static let records = (0..<16)
        .map {
            Record(
                id: $0,
                name: "written record \($0)",
                tags: ["alpha", "beta", "tag \($0)"],
                score: Double($0) + 0.5,
                created: Seed.record.created.addingTimeInterval(Double($0))
            )
        }
    static let modes = (0..<4).flatMap { _ in [Mode.a, .b, .c, .b] }
    static let listItem = "the appended list item"
}

/// A Foundation suite, and the values a write benchmark cycles through.
final class FoundationWrites<Value> {
    let defaults: UserDefaults
    let values: [Value]
    var count = 0
    init(defaults: UserDefaults, values: [Value]) {
        self.defaults = defaults
        self.values = values
    }
    /// The value the last write stored.
    var last: Value { values[count & 15] }
}

/// A TypedDefaults adapter, a key, and the values a write benchmark cycles through.
final class TypedWrites<Value: DefaultsSerializable> {
    let adapter: DefaultsAdapter<DefaultsKeys>
    let key: Key<Value>
    let values: [Value]
    var count = 0
    init(adapter: DefaultsAdapter<DefaultsKeys>, key: Key<Value>, values: [Value]) {
        self.adapter = adapter
        self.key = key
        self.values = values
    }
    /// The value the last write stored.
    var last: Value { values[count & 15] }
}

/// A TypedDefaults adapter and the key a read benchmark reads.
final class TypedRead<Value: DefaultsSerializable> {
    let adapter: DefaultsAdapter<DefaultsKeys>
    let key: Key<Value>
    init(adapter: DefaultsAdapter<DefaultsKeys>, key: Key<Value>) {
        self.adapter = adapter
        self.key = key
    }
}

/// Throws unless `read` is what `matches` accepts: a setup's check that it reads the seeded value.
func expectSeeded<Value>(_ read: Value, _ what: String, _ matches: (Value) -> Bool) throws {
    guard matches(read) else { throw BenchmarkSetupError("\(what) reads \(read), not the seeded value") }
}

/// Throws unless the value left in memory after a Foundation write benchmark is `matches`'s.
func expectWritten<Value>(_ read: Value, _ what: String, _ matches: (Value) -> Bool) throws {
    guard matches(read) else { throw BenchmarkSetupError("\(what) reads \(read) after the run, not the last write") }
}

/// The ISO 8601 timestamp of `date` to the second, without the "Z": what TypedDefaults' stored form starts with.
private func timestampPrefix(_ date: Date) -> String {
    String(ISO8601DateFormatter().string(from: date).dropLast())
}

func registerValueBenchmarks(reads: Benchmark.Configuration, writes: Benchmark.Configuration) {
    registerStringBenchmarks(reads: reads, writes: writes)
    registerDateAndURLBenchmarks(reads: reads, writes: writes)
    registerInPlaceBenchmarks(reads: reads, writes: writes)
    registerCodableAndEnumBenchmarks(reads: reads, writes: writes)

    // The property wrapper with `.cached`: created in the setup, whose check of the seeded value is its first
    // read and fills the cache; the body's reads come from the cache. Pairs with "Foundation get Int".
    suiteBenchmark("TypedDefaults get Int (@Default, cached)", configuration: reads) { suite in
        let wrapper = Default(key: Key<Int>("k", default: 0), adapter: try suite.adapter(), options: [.cached])
        try expectSeeded(wrapper.wrappedValue, "@Default(.cached) of \"k\"") { $0 == SuiteFixture.seededValue }
        return wrapper
    } body: { benchmark, wrapper in
        for _ in benchmark.scaledIterations {
            blackHole(wrapper.wrappedValue)
        }
    }
}

// MARK: - String and String?

private func registerStringBenchmarks(reads: Benchmark.Configuration, writes: Benchmark.Configuration) {
    suiteBenchmark("Foundation get String", configuration: reads) { suite in
        let defaults = suite.foundationDefaults()
        try expectSeeded(defaults.string(forKey: "name"), "Foundation's string(forKey: \"name\")") {
            $0 == Seed.string
        }
        return defaults
    } body: { benchmark, defaults in
        for _ in benchmark.scaledIterations {
            blackHole(defaults.string(forKey: "name"))
        }
    }

    suiteBenchmark("TypedDefaults get String", configuration: reads) { suite in
        let state = TypedRead(adapter: try suite.adapter(), key: Key<String>("name", default: ""))
        try expectSeeded(state.adapter[key: state.key], "TypedDefaults' \"name\"") { $0 == Seed.string }
        return state
    } body: { benchmark, state in
        for _ in benchmark.scaledIterations {
            blackHole(state.adapter[key: state.key])
        }
    }

    suiteBenchmark("Foundation set String", configuration: writes) { suite in
        let state = FoundationWrites(defaults: suite.foundationDefaults(), values: Written.strings)
        try expectSeeded(state.defaults.string(forKey: "name"), "Foundation's \"name\"") { $0 == Seed.string }
        return state
    } body: { benchmark, state in
        for _ in benchmark.scaledIterations {
            state.count &+= 1
            state.defaults.set(state.last, forKey: "name")
        }
    } verify: { _, state in
        try expectWritten(state.defaults.string(forKey: "name"), "Foundation's \"name\"") { $0 == state.last }
    }

    suiteBenchmark("TypedDefaults set String (coalesced)", configuration: reads) { suite in
        let state = TypedWrites(
            adapter: try suite.adapter(),
            key: Key<String>("name", default: ""),
            values: Written.strings
        )
        try expectSeeded(state.adapter[key: state.key], "TypedDefaults' \"name\"") { $0 == Seed.string }
        return state
    } body: { benchmark, state in
        for _ in benchmark.scaledIterations {
            state.count &+= 1
            state.adapter[key: state.key] = state.last
        }
    } verify: { suite, state in
        try state.adapter.flush()
        try suite.verifyFile("name", expected: state.last) { $0 as? String == state.last }
    }

    // An optional read of a key the suite does not hold: nil, not a default.
    suiteBenchmark("Foundation get String? (absent)", configuration: reads) { suite in
        let defaults = suite.foundationDefaults()
        try expectSeeded(defaults.integer(forKey: "k"), "Foundation's \"k\"") { $0 == SuiteFixture.seededValue }
        try expectSeeded(defaults.string(forKey: "absent"), "Foundation's \"absent\"") { $0 == nil }
        return defaults
    } body: { benchmark, defaults in
        for _ in benchmark.scaledIterations {
            blackHole(defaults.string(forKey: "absent"))
        }
    }

    // The key is made in the loop, as a computed key property in `DefaultsKeys` would be.
    suiteBenchmark("TypedDefaults get String? (absent)", configuration: reads) { suite in
        let adapter = try suite.adapter()
        try expectSeeded(adapter[key: Key<Int>("k", default: 0)], "TypedDefaults' \"k\"") {
            $0 == SuiteFixture.seededValue
        }
        try expectSeeded(adapter[key: Key<String?>("absent")], "TypedDefaults' \"absent\"") { $0 == nil }
        return adapter
    } body: { benchmark, adapter in
        for _ in benchmark.scaledIterations {
            blackHole(adapter[key: Key<String?>("absent")])
        }
    }
}

// MARK: - Date and URL

private func registerDateAndURLBenchmarks(reads: Benchmark.Configuration, writes: Benchmark.Configuration) {
    suiteBenchmark("Foundation get Date", configuration: reads) { suite in
        let defaults = suite.foundationDefaults()
        try expectSeeded(defaults.object(forKey: "rawDate") as? Date, "Foundation's \"rawDate\"") {
            Seed.isSeededDate($0, Seed.rawDate)
        }
        return defaults
    } body: { benchmark, defaults in
        for _ in benchmark.scaledIterations {
            blackHole(defaults.object(forKey: "rawDate") as? Date)
        }
    }

    suiteBenchmark("TypedDefaults get Date", configuration: reads) { suite in
        let state = TypedRead(adapter: try suite.adapter(), key: Key<Date>("date", default: .distantPast))
        try expectSeeded(state.adapter[key: state.key], "TypedDefaults' \"date\"") { Seed.isSeededDate($0, Seed.date) }
        return state
    } body: { benchmark, state in
        for _ in benchmark.scaledIterations {
            blackHole(state.adapter[key: state.key])
        }
    }

    suiteBenchmark("Foundation set Date", configuration: writes) { suite in
        let state = FoundationWrites(defaults: suite.foundationDefaults(), values: Written.dates)
        try expectSeeded(state.defaults.object(forKey: "rawDate") as? Date, "Foundation's \"rawDate\"") {
            Seed.isSeededDate($0, Seed.rawDate)
        }
        return state
    } body: { benchmark, state in
        for _ in benchmark.scaledIterations {
            state.count &+= 1
            state.defaults.set(state.last, forKey: "rawDate")
        }
    } verify: { _, state in
        try expectWritten(state.defaults.object(forKey: "rawDate") as? Date, "Foundation's \"rawDate\"") {
            Seed.isSeededDate($0, state.last)
        }
    }

    suiteBenchmark("TypedDefaults set Date (coalesced)", configuration: reads) { suite in
        let state = TypedWrites(
            adapter: try suite.adapter(),
            key: Key<Date>("date", default: .distantPast),
            values: Written.dates
        )
        try expectSeeded(state.adapter[key: state.key], "TypedDefaults' \"date\"") { Seed.isSeededDate($0, Seed.date) }
        return state
    } body: { benchmark, state in
        for _ in benchmark.scaledIterations {
            state.count &+= 1
            state.adapter[key: state.key] = state.last
        }
    } verify: { suite, state in
        try state.adapter.flush()
        let prefix = timestampPrefix(state.last)
        try suite.verifyFile("date", expected: prefix + "…Z") { ($0 as? String)?.hasPrefix(prefix + ".") == true }
    }

    // Foundation's `url(forKey:)` of a URL stored by `set(_: URL, forKey:)`.
    suiteBenchmark("Foundation get URL", configuration: reads) { suite in
        let defaults = suite.foundationDefaults()
        try expectSeeded(defaults.url(forKey: "rawURL"), "Foundation's url(forKey: \"rawURL\")") {
            $0?.absoluteString == Seed.url.absoluteString
        }
        return defaults
    } body: { benchmark, defaults in
        for _ in benchmark.scaledIterations {
            blackHole(defaults.url(forKey: "rawURL"))
        }
    }

    suiteBenchmark("TypedDefaults get URL", configuration: reads) { suite in
        let state = TypedRead(adapter: try suite.adapter(), key: Key<URL?>("url"))
        try expectSeeded(state.adapter[key: state.key], "TypedDefaults' \"url\"") {
            $0?.absoluteString == Seed.url.absoluteString
        }
        return state
    } body: { benchmark, state in
        for _ in benchmark.scaledIterations {
            blackHole(state.adapter[key: state.key])
        }
    }

    suiteBenchmark("Foundation set URL", configuration: writes) { suite in
        let state = FoundationWrites(defaults: suite.foundationDefaults(), values: Written.urls)
        try expectSeeded(state.defaults.url(forKey: "rawURL"), "Foundation's \"rawURL\"") {
            $0?.absoluteString == Seed.url.absoluteString
        }
        return state
    } body: { (benchmark, state: FoundationWrites<URL>) in
        for _ in benchmark.scaledIterations {
            state.count &+= 1
            state.defaults.set(state.last, forKey: "rawURL")
        }
    } verify: { _, state in
        try expectWritten(state.defaults.url(forKey: "rawURL"), "Foundation's \"rawURL\"") {
            $0?.absoluteString == state.last.absoluteString
        }
    }

    suiteBenchmark("TypedDefaults set URL (coalesced)", configuration: reads) { suite in
        let state = TypedWrites(adapter: try suite.adapter(), key: Key<URL?>("url"), values: Written.urls)
        try expectSeeded(state.adapter[key: state.key], "TypedDefaults' \"url\"") {
            $0?.absoluteString == Seed.url.absoluteString
        }
        return state
    } body: { benchmark, state in
        for _ in benchmark.scaledIterations {
            state.count &+= 1
            state.adapter[key: state.key] = state.last
        }
    } verify: { suite, state in
        try state.adapter.flush()
        let expected = state.last?.absoluteString
        try suite.verifyFile("url", expected: expected ?? "nil") { $0 as? String == expected }
    }
}

// MARK: - In place: += 1, and [String]

private func registerInPlaceBenchmarks(reads: Benchmark.Configuration, writes: Benchmark.Configuration) {
    suiteBenchmark("Foundation Int += 1", configuration: writes) { suite in
        let state = Counter(defaults: suite.foundationDefaults())
        try expectSeeded(state.defaults.integer(forKey: "k"), "Foundation's \"k\"") { $0 == SuiteFixture.seededValue }
        return state
    } body: { benchmark, state in
        for _ in benchmark.scaledIterations {
            state.next &+= 1
            state.defaults.set(state.defaults.integer(forKey: "k") + 1, forKey: "k")
        }
    } verify: { _, state in
        try expectWritten(state.defaults.integer(forKey: "k"), "Foundation's \"k\"") { $0 == state.next }
    }

    suiteBenchmark("TypedDefaults Int += 1 (coalesced)", configuration: reads) { suite in
        let state = TypedState(adapter: try suite.adapter())
        try expectSeeded(state.adapter[key: state.key], "TypedDefaults' \"k\"") { $0 == SuiteFixture.seededValue }
        return state
    } body: { benchmark, state in
        for _ in benchmark.scaledIterations {
            state.next &+= 1
            state.adapter[key: state.key] += 1
        }
    } verify: { suite, state in
        try state.adapter.flush()
        try suite.verifyFile(holds: state.next)
    }

    suiteBenchmark("Foundation get [String]", configuration: reads) { suite in
        let defaults = suite.foundationDefaults()
        try expectSeeded(defaults.stringArray(forKey: "list"), "Foundation's \"list\"") { $0 == Seed.list }
        return defaults
    } body: { benchmark, defaults in
        for _ in benchmark.scaledIterations {
            blackHole(defaults.stringArray(forKey: "list"))
        }
    }

    suiteBenchmark("TypedDefaults get [String]", configuration: reads) { suite in
        let state = TypedRead(adapter: try suite.adapter(), key: Key<[String]>("list", default: []))
        try expectSeeded(state.adapter[key: state.key], "TypedDefaults' \"list\"") { $0 == Seed.list }
        return state
    } body: { benchmark, state in
        for _ in benchmark.scaledIterations {
            blackHole(state.adapter[key: state.key])
        }
    }

    // One operation appends an element in place and then removes it again, in a second statement of the same
    // form, so the array stays at 10 and 11 elements: two reads and two writes of the array per operation.
    suiteBenchmark("Foundation append to [String] and remove it", configuration: writes) { suite in
        let defaults = suite.foundationDefaults()
        try expectSeeded(defaults.stringArray(forKey: "list"), "Foundation's \"list\"") { $0 == Seed.list }
        return defaults
    } body: { benchmark, defaults in
        for _ in benchmark.scaledIterations {
            var appended = defaults.stringArray(forKey: "list")!
            appended.append(Written.listItem)
            defaults.set(appended, forKey: "list")
            var removed = defaults.stringArray(forKey: "list")!
            removed.removeLast()
            defaults.set(removed, forKey: "list")
        }
    } verify: { _, defaults in
        try expectWritten(defaults.stringArray(forKey: "list"), "Foundation's \"list\"") { $0 == Seed.list }
    }

    suiteBenchmark("TypedDefaults append to [String] and remove it (coalesced)", configuration: reads) { suite in
        let state = TypedRead(adapter: try suite.adapter(), key: Key<[String]>("list", default: []))
        try expectSeeded(state.adapter[key: state.key], "TypedDefaults' \"list\"") { $0 == Seed.list }
        return state
    } body: { benchmark, state in
        for _ in benchmark.scaledIterations {
            state.adapter[key: state.key].append(Written.listItem)
            state.adapter[key: state.key].removeLast()
        }
    } verify: { suite, state in
        try state.adapter.flush()
        try suite.verifyFile("list", expected: "\(Seed.list)") { $0 as? [String] == Seed.list }
    }
}

// MARK: - Codable and enum

private func registerCodableAndEnumBenchmarks(reads: Benchmark.Configuration, writes: Benchmark.Configuration) {
    suiteBenchmark("Foundation get Codable", configuration: reads) { suite in
        let defaults = suite.foundationDefaults()
        let record = try JSONDecoder().decode(Record.self, from: defaults.data(forKey: "rawRecord")!)
        try expectSeeded(record, "Foundation's \"rawRecord\"") { $0 == Seed.record }
        return defaults
    } body: { benchmark, defaults in
        for _ in benchmark.scaledIterations {
            blackHole(try JSONDecoder().decode(Record.self, from: defaults.data(forKey: "rawRecord")!))
        }
    }

    suiteBenchmark("TypedDefaults get Codable", configuration: reads) { suite in
        let state = TypedRead(adapter: try suite.adapter(), key: Key<Record>("record", default: Written.records[0]))
        try expectSeeded(state.adapter[key: state.key], "TypedDefaults' \"record\"") { $0 == Seed.record }
        return state
    } body: { benchmark, state in
        for _ in benchmark.scaledIterations {
            blackHole(state.adapter[key: state.key])
        }
    }

    suiteBenchmark("Foundation set Codable", configuration: writes) { suite in
        let state = FoundationWrites(defaults: suite.foundationDefaults(), values: Written.records)
        let record = try JSONDecoder().decode(Record.self, from: state.defaults.data(forKey: "rawRecord")!)
        try expectSeeded(record, "Foundation's \"rawRecord\"") { $0 == Seed.record }
        return state
    } body: { benchmark, state in
        for _ in benchmark.scaledIterations {
            state.count &+= 1
            state.defaults.set(try JSONEncoder().encode(state.last), forKey: "rawRecord")
        }
    } verify: { _, state in
        let record = try JSONDecoder().decode(Record.self, from: state.defaults.data(forKey: "rawRecord")!)
        try expectWritten(record, "Foundation's \"rawRecord\"") { $0 == state.last }
    }

    suiteBenchmark("TypedDefaults set Codable (coalesced)", configuration: reads) { suite in
        let state = TypedWrites(
            adapter: try suite.adapter(),
            key: Key<Record>("record", default: Written.records[0]),
            values: Written.records
        )
        try expectSeeded(state.adapter[key: state.key], "TypedDefaults' \"record\"") { $0 == Seed.record }
        return state
    } body: { benchmark, state in
        for _ in benchmark.scaledIterations {
            state.count &+= 1
            state.adapter[key: state.key] = state.last
        }
    } verify: { suite, state in
        try state.adapter.flush()
        try suite.verifyFile("record", expected: "\(state.last)") { stored in
            guard let text = stored as? String else { return false }
            return (try? JSONDecoder().decode(Record.self, from: Data(text.utf8))) == state.last
        }
    }

    suiteBenchmark("Foundation get enum", configuration: reads) { suite in
        let defaults = suite.foundationDefaults()
        try expectSeeded(Mode(rawValue: defaults.string(forKey: "mode")!), "Foundation's \"mode\"") { $0 == Seed.mode }
        return defaults
    } body: { benchmark, defaults in
        for _ in benchmark.scaledIterations {
            blackHole(Mode(rawValue: defaults.string(forKey: "mode")!))
        }
    }

    suiteBenchmark("TypedDefaults get enum", configuration: reads) { suite in
        let state = TypedRead(adapter: try suite.adapter(), key: Key<Mode>("mode", default: .a))
        try expectSeeded(state.adapter[key: state.key], "TypedDefaults' \"mode\"") { $0 == Seed.mode }
        return state
    } body: { benchmark, state in
        for _ in benchmark.scaledIterations {
            blackHole(state.adapter[key: state.key])
        }
    }

    suiteBenchmark("Foundation set enum", configuration: writes) { suite in
        let state = FoundationWrites(defaults: suite.foundationDefaults(), values: Written.modes)
        try expectSeeded(Mode(rawValue: state.defaults.string(forKey: "mode")!), "Foundation's \"mode\"") {
            $0 == Seed.mode
        }
        return state
    } body: { benchmark, state in
        for _ in benchmark.scaledIterations {
            state.count &+= 1
            state.defaults.set(state.last.rawValue, forKey: "mode")
        }
    } verify: { _, state in
        try expectWritten(state.defaults.string(forKey: "mode"), "Foundation's \"mode\"") {
            $0 == state.last.rawValue
        }
    }

    suiteBenchmark("TypedDefaults set enum (coalesced)", configuration: reads) { suite in
        let state = TypedWrites(
            adapter: try suite.adapter(),
            key: Key<Mode>("mode", default: .a),
            values: Written.modes
        )
        try expectSeeded(state.adapter[key: state.key], "TypedDefaults' \"mode\"") { $0 == Seed.mode }
        return state
    } body: { benchmark, state in
        for _ in benchmark.scaledIterations {
            state.count &+= 1
            state.adapter[key: state.key] = state.last
        }
    } verify: { suite, state in
        try state.adapter.flush()
        try suite.verifyFile("mode", expected: state.last.rawValue) { $0 as? String == state.last.rawValue }
    }
}
#endif
