import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// `PropertyListValue` as the dynamic value type: sindresorhus/Defaults' `AnySerializable` and
/// SwiftyUserDefaults' `[String: Any]`.
@Suite("PropertyListValue as a dynamic value")
struct PropertyListValueDynamicTests {
    @Test("literals of every kind make the matching case")
    func literals() {
        let values: [PropertyListValue] = ["a", true, 3, 0.5, [1, "two"], ["k": 1]]
        #expect(
            values == [
                .string("a"), .bool(true), .integer(3), .double(0.5), .array([.integer(1), .string("two")]),
                .dictionary(["k": .integer(1)]),
            ]
        )
        let nested: PropertyListValue = ["window": ["width": 800, "title": "Main"], "recent": ["a", "b"]]
        #expect(nested.get([String: PropertyListValue].self)?["recent"] == ["a", "b"])
    }

    @Test("a dictionary literal with a key written twice keeps the last entry instead of stopping the process")
    func repeatedKey() {
        let value: PropertyListValue = ["k": 1, "k": 2]
        #expect(value == ["k": 2])
    }

    @Test("get reads through the type's bridge, by the same rules as a key of that type")
    func typedGet() {
        let one: PropertyListValue = 1
        #expect(one.get(Int.self) == 1)
        #expect(one.get(Double.self) == 1.0, "an integer is a Double, as FloatingPointBridge reads it")
        #expect(one.get(Bool.self) == true, "0 and 1 are Booleans, as BoolBridge reads them")
        #expect(one.get(String.self) == nil)
        #expect(one.get(Int8.self) == 1)
        let count: Int? = one.get()
        #expect(count == 1)

        let real: PropertyListValue = 3.0
        #expect(real.get(Int.self) == 3, "an integral real is an Int")
        #expect((3.5 as PropertyListValue).get(Int.self) == nil, "3.5 is no Int")
        #expect((300 as PropertyListValue).get(Int8.self) == nil, "out of range, not wrapped")
        #expect(("3" as PropertyListValue).get(Int.self) == 3, "numeric text, as a stored string reads")
        #expect(("dark" as PropertyListValue).get(Theme.self) == .dark)
        #expect(("sepia" as PropertyListValue).get(Theme.self) == nil)
    }

    @Test("any supported value goes in through its bridge and comes back out, enums and Codable values too")
    func initAndSet() throws {
        let profile = Profile(name: "Ann", tags: ["a"], joined: Date(timeIntervalSinceReferenceDate: 0.5))
        let stored = try PropertyListValue(profile)
        #expect(stored.stringValue?.hasPrefix("{") == true)
        #expect(stored.get(Profile.self) == profile)

        var value = try PropertyListValue(Priority.high)
        #expect(value == 2)
        try value.set(Theme.dark)
        #expect(value == "dark")
        #expect(value.get(Theme.self) == .dark)
        try value.set(9..<12)
        #expect(value == [9, 12])
    }

    @Test("a value with no stored form is refused with an error, and set leaves the old value")
    func noStoredForm() throws {
        #expect(throws: DefaultsBridgeError.self) { try PropertyListValue(nil as Int?) }
        #expect(throws: DefaultsBridgeError.self) { try PropertyListValue(Reading(value: .nan)) }
        var value: PropertyListValue = 1
        #expect(throws: DefaultsBridgeError.self) { try value.set([1, nil] as [Int?]) }
        #expect(value == 1)
    }

    @Test("a dynamic key holds a different type from write to write, like sindresorhus/Defaults' AnySerializable")
    func dynamicKey() throws {
        let suite = IsolatedSuite()
        let key = Key<PropertyListValue>("anyKey", default: 1)
        #expect(suite.adapter[key: key].get(Int.self) == 1)
        suite.adapter[key: key] = "🦄"
        #expect(suite.adapter[key: key].get(String.self) == "🦄")
        #expect(try suite.fileContents()["anyKey"] as? String == "🦄")
        suite.adapter[key: key] = try PropertyListValue(Theme.dark)
        #expect(suite.adapter[key: key].get(Theme.self) == .dark)
        #expect(try suite.fileContents()["anyKey"] as? String == "dark", "the raw value, as a Theme key stores it")
    }

    @Test("[String: PropertyListValue] and its array are the [String: Any] keys: plain dictionaries on disk")
    func stringAnyKeys() throws {
        let suite = IsolatedSuite()
        let settings = Key<[String: PropertyListValue]>("settings", default: [:])
        let rows = Key<[[String: PropertyListValue]]>("rows", default: [])
        suite.adapter[key: settings] = ["unicorn": "🦄", "number": 3, "boolean": true]
        suite.adapter[key: settings]["enum"] = try PropertyListValue(Theme.dark)
        suite.adapter[key: rows] = [["name": "Ann", "age": 24], ["name": "Bo"]]

        let file = try suite.fileContents()
        let dictionary = try #require(file["settings"] as? [String: Any])
        #expect(dictionary["unicorn"] as? String == "🦄")
        #expect(dictionary["number"] as? Int == 3)
        #expect(dictionary["boolean"] as? Bool == true)
        #expect(dictionary["enum"] as? String == "dark")
        #expect((file["rows"] as? [[String: Any]])?.count == 2)

        // What other code (Foundation-shaped, taking [String: Any]) gets: the same values.
        let foundation = suite.adapter[key: settings].mapValues(\.foundationObject)
        #expect(foundation["number"] as? Int == 3 && foundation["unicorn"] as? String == "🦄")
        let rowsAsAny = suite.adapter[key: rows].map { $0.mapValues(\.foundationObject) }
        #expect(rowsAsAny.first?["age"] as? Int == 24)
        #expect(suite.adapter[key: settings]["enum"]?.get(Theme.self) == .dark)
    }

    @Test("a [String: Any] that SwiftyUserDefaults stored reads as it is, and is read in a new process")
    func peerDictionary() throws {
        let suite = IsolatedSuite(fileContents: ["any": ["a": 1, "b": 2], "rows": [["x": 1.5], ["y": "z"]]])
        #expect(suite.adapter[key: Key<[String: PropertyListValue]>("any", default: [:])] == ["a": 1, "b": 2])
        #expect(
            suite.adapter[key: Key<[[String: PropertyListValue]]>("rows", default: [])] == [["x": 1.5], ["y": "z"]]
        )
        let run = try Helper.run(["print-migration-types", suite.name], configDirectory: suite.directory.url)
        #expect(run.settings["any"] == "[(key: \"a\", value: 1), (key: \"b\", value: 2)]")
    }
}
