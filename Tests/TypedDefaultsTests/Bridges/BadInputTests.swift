import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// Bad input gets a clear answer: the default and a diagnostic for a bad stored value, a typed error for a
/// value that cannot be stored, and never a crash or silent loss.
@Suite("Bad input")
struct BadInputTests {
    /// A suite whose file holds `object` for `key`, as another program left it.
    private func suite(storing object: Any, forKey key: String) -> IsolatedSuite {
        IsolatedSuite(fileContents: [key: object])
    }

    @Test("a stored value of the wrong type reads as the default, is left untouched, and is reported")
    func wrongStoredType() throws {
        let suite = suite(storing: "abc", forKey: "launchCount")
        #expect(suite.adapter.launchCount == 0)
        #expect(suite.adapter.hasKey(\.launchCount))
        #expect(try suite.fileContents()["launchCount"] as? String == "abc", "left as it is until the user writes")

        let diagnostic = try #require(suite.diagnostics.first { $0.kind == .storedValueMismatch })
        #expect(diagnostic.key == "launchCount")
        #expect(diagnostic.message.contains("\"abc\"") && diagnostic.message.contains("expected Int"))

        suite.adapter.launchCount += 1
        #expect(try suite.fileContents()["launchCount"] as? Int == 1)
    }

    @Test(
        "mismatches of every family read as the default",
        arguments: [
            ("a string for a Bool", PropertyListValue.string("maybe"), "Bool"),
            ("300 for an Int8", .integer(300), "Int8"),
            ("-1 for a UInt", .integer(-1), "UInt"),
            ("a date string that is no date", .string("yesterday"), "Date"),
            ("data for a URL (url(forKey:) aborts on this)", .data(Data("not an archive".utf8)), "URL"),
            ("an array with a string for [Int]", .array([.integer(1), .string("two")]), "Array<Int>"),
            ("a number for a String", .integer(5), "String"),
            ("a name for an enum that has no such case", .string("sepia"), "Theme"),
            ("garbage for an NSSecureCoding class", .data(Data([1, 2, 3])), "Bookmark"),
        ]
    )
    func mismatches(_ label: String, stored: PropertyListValue, type: String) throws {
        let suite = suite(storing: stored.foundationObject, forKey: "value")
        let defaults = suite.adapter
        switch type {
        case "Bool": #expect(defaults[key: Key<Bool>("value", default: true)] == true)
        case "Int8": #expect(defaults[key: Key<Int8>("value", default: 1)] == 1)
        case "UInt": #expect(defaults[key: Key<UInt>("value", default: 1)] == 1)
        case "Date": #expect(defaults[key: Key<Date?>("value")] == nil)
        case "URL": #expect(defaults[key: Key<URL?>("value")] == nil)
        case "Array<Int>": #expect(defaults[key: Key<[Int]>("value", default: [7])] == [7])
        case "String": #expect(defaults[key: Key<String>("value", default: "d")] == "d")
        case "Theme": #expect(defaults[key: Key<Theme>("value", default: .light)] == .light)
        case "Bookmark": #expect(defaults[key: Key<Bookmark?>("value")] == nil)
        default: Issue.record("unknown type \(type)")
        }
        #expect(suite.diagnostics.contains { $0.kind == .storedValueMismatch && $0.message.contains(type) }, "\(label)")
    }

    @Test("a Codable payload that no longer decodes reads as the default, naming the reason")
    func staleCodable() throws {
        let suite = suite(storing: #"{"name":"Ann","joined":3}"#, forKey: "profile")
        #expect(suite.adapter.profile == nil)
        let diagnostic = try #require(suite.diagnostics.first { $0.kind == .storedValueMismatch })
        #expect(diagnostic.message.contains("missing key \"tags\""))
    }

    @Test("a value JSON cannot hold is refused with a typed error; the old value stays")
    func notRepresentableCodable() throws {
        let suite = IsolatedSuite()
        let key = Key<Reading?>("reading")
        try suite.adapter.set(Reading(value: 1), for: key)
        #expect(throws: DefaultsError.self) { try suite.adapter.set(Reading(value: .nan), for: key) }
        #expect(suite.adapter[key: key] == Reading(value: 1))

        // The subscript setter cannot throw: it reports instead, and the old value still stays.
        suite.adapter[key: key] = Reading(value: .infinity)
        #expect(suite.adapter[key: key] == Reading(value: 1))
        let diagnostic = try #require(suite.diagnostics.first { $0.kind == .writeFailed })
        #expect(diagnostic.message.contains("reading") && diagnostic.message.contains("unchanged"))
    }

    @Test("values without a property-list form are refused, never handed to Foundation")
    func refusedValues() throws {
        let suite = IsolatedSuite()
        let defaults = suite.adapter
        func expectRefused<Value>(_ value: Value, _ key: Key<Value>, mentioning text: String) {
            do {
                try defaults.set(value, for: key)
                Issue.record("\(key) accepted \(value)")
            } catch {
                guard case .valueNotStorable(let name, _, let reason) = error else {
                    Issue.record("unexpected error \(error)")
                    return
                }
                #expect(name == key.name)
                #expect(reason.contains(text), "\(reason)")
            }
            #expect(!defaults.hasKey(key))
        }
        expectRefused([1, nil], Key<[Int?]>("holes", default: []), mentioning: "nil")
        expectRefused(["a": nil], Key<[String: Int?]>("dictionaryHole", default: [:]), mentioning: "nil")
        expectRefused([Double.nan: "x"], Key<[Double: String]>("nanKeys", default: [:]), mentioning: "as text")
        expectRefused("nul\u{0}byte", Key<String>("nul", default: ""), mentioning: "U+0")
        expectRefused("bell\u{7}", Key<String>("bell", default: ""), mentioning: "U+7")
        expectRefused(["ok", "escape\u{1B}"], Key<[String]>("nested", default: []), mentioning: "U+1B")
        expectRefused(["key\u{0}": 1], Key<[String: Int]>("badKey", default: [:]), mentioning: "dictionary key")
        expectRefused(Date(timeIntervalSinceReferenceDate: .infinity), Key<Date?>("forever"), mentioning: "date")
        expectRefused(Decimal.nan, Key<Decimal>("nanDecimal", default: 0), mentioning: "NaN")
        expectRefused(1, Key<Int>("name\u{0}with NUL", default: 0), mentioning: "key name")
    }

    @Test("setting nil removes the key (Foundation's set(nil) spins forever)", .timeLimit(.minutes(1)))
    func nilRemoves() throws {
        let suite = IsolatedSuite()
        suite.adapter.username = "ann"
        suite.adapter.username = nil
        suite.adapter[key: Key<URL?>("site")] = nil
        #expect(suite.adapter.username == nil)
        #expect(!suite.adapter.hasKey(\.username))
        #expect(((try? suite.fileContents()) ?? [:]).isEmpty, "Foundation removes an emptied file")
    }

    @Test("values that crash or corrupt Foundation on Linux are stored in readable, exact forms")
    func foundationTraps() throws {
        let suite = IsolatedSuite()
        let defaults = suite.adapter
        let id = UUID()
        defaults[key: Key<UUID?>("uuid")] = id
        defaults[key: Key<CGFloat>("cgfloat", default: 0)] = 2.5
        defaults[key: Key<Decimal>("decimal", default: 0)] = Decimal(string: "1.1")!
        defaults[key: Key<Set<String>>("set", default: [])] = ["a"]
        defaults[key: Key<Int>("intMax", default: 0)] = .max
        defaults[key: Key<UInt64>("uint64Max", default: 0)] = .max
        defaults[key: Key<Float>("float", default: 0)] = 3.14
        defaults[key: Key<Double>("negativeZero", default: 1)] = -0.0

        let file = try suite.fileContents()
        #expect(file["uuid"] as? String == id.uuidString)
        #expect(file["cgfloat"] as? Double == 2.5)
        #expect(file["decimal"] as? String == "1.1")
        #expect(file["set"] as? [String] == ["a"])
        #expect(file["negativeZero"] as? String == "-0.0")

        // A fresh adapter reads what the file holds, not an in-memory copy.
        let reader = try suite.secondAdapter(keyStore: DefaultsKeys())
        #expect(reader[key: Key<Int>("intMax", default: 0)] == .max)
        #expect(reader[key: Key<UInt64>("uint64Max", default: 0)] == .max)
        #expect(reader[key: Key<Float>("float", default: 0)] == 3.14)
        #expect(reader[key: Key<Double>("negativeZero", default: 1)].sign == .minus)
        #expect(reader[key: Key<Decimal>("decimal", default: 0)] == Decimal(string: "1.1")!)
    }

    @Test("a stored value that is not a property-list value reads as the default")
    func nonPropertyListStoredValue() throws {
        let suite = IsolatedSuite()
        // Foundation's registration domain accepts anything, including objects no bridge can read.
        let foundation = suite.foundationDefaults()
        let key = "registered.\(UUID().uuidString)"
        foundation.register(defaults: [key: UUID()])
        let defaults = DefaultsAdapter(defaults: foundation, keyStore: DefaultsKeys())
        #expect(defaults[key: Key<String>(key, default: "fallback")] == "fallback")
    }
}
