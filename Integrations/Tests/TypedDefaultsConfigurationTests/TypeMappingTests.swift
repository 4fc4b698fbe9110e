import Configuration
import Foundation
import Testing
import TypedDefaults
import TypedDefaultsConfiguration

/// How stored values read as each `ConfigType`: as the TypedDefaults key of the matching Swift type reads them.
@Suite struct TypeMappingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let stored: PropertyListValue
        let type: ConfigType
        /// What the provider returns; `nil` for a mismatch.
        let expected: ConfigContent?
        var testDescription: String { "\(stored) as \(type)" }
    }

    static let readable: [Case] = [
        Case(stored: .integer(42), type: .int, expected: .int(42)),
        Case(stored: .integer(-7), type: .int, expected: .int(-7)),
        Case(stored: .unsignedInteger(7), type: .int, expected: .int(7)),
        Case(stored: .double(5), type: .int, expected: .int(5)),
        Case(stored: .string("12"), type: .int, expected: .int(12)),
        Case(stored: .double(2.5), type: .double, expected: .double(2.5)),
        Case(stored: .integer(3), type: .double, expected: .double(3)),
        Case(stored: .string("0.25"), type: .double, expected: .double(0.25)),
        Case(stored: .bool(true), type: .bool, expected: .bool(true)),
        Case(stored: .integer(0), type: .bool, expected: .bool(false)),
        Case(stored: .string("YES"), type: .bool, expected: .bool(true)),
        Case(stored: .string("hello"), type: .string, expected: .string("hello")),
        Case(stored: .string(""), type: .string, expected: .string("")),
        Case(stored: .data(Data([1, 2, 255])), type: .bytes, expected: .bytes([1, 2, 255])),
        Case(stored: .array([.string("a"), .string("b")]), type: .stringArray, expected: .stringArray(["a", "b"])),
        Case(stored: .array([]), type: .stringArray, expected: .stringArray([])),
        Case(stored: .array([.integer(1), .double(2)]), type: .intArray, expected: .intArray([1, 2])),
        Case(stored: .array([.double(0.5), .integer(2)]), type: .doubleArray, expected: .doubleArray([0.5, 2])),
        Case(stored: .array([.bool(false), .bool(true)]), type: .boolArray, expected: .boolArray([false, true])),
        Case(
            stored: .array([.data(Data([1])), .data(Data())]),
            type: .byteChunkArray,
            expected: .byteChunkArray([[1], []])
        ),
    ]

    static let mismatched: [Case] = [
        Case(stored: .string("soon"), type: .int, expected: nil),
        Case(stored: .double(2.5), type: .int, expected: nil),
        Case(stored: .unsignedInteger(.max), type: .int, expected: nil),
        Case(stored: .bool(true), type: .int, expected: nil),
        Case(stored: .string("fast"), type: .double, expected: nil),
        Case(stored: .string("maybe"), type: .bool, expected: nil),
        Case(stored: .integer(2), type: .bool, expected: nil),
        Case(stored: .integer(1), type: .string, expected: nil),
        Case(stored: .string("AQI="), type: .bytes, expected: nil),
        Case(stored: .date(Date(timeIntervalSince1970: 0)), type: .string, expected: nil),
        Case(stored: .string("a"), type: .stringArray, expected: nil),
        Case(stored: .array([.integer(1), .string("x")]), type: .intArray, expected: nil),
        Case(stored: .dictionary(["a": .integer(1)]), type: .intArray, expected: nil),
        Case(stored: .array([.string("a")]), type: .byteChunkArray, expected: nil),
    ]

    @Test(arguments: readable)
    func readsAsTheMatchingKeyType(_ test: Case) throws {
        let provider = try Self.provider(storing: test.stored, under: "some.key")
        let result = try provider.value(forKey: AbsoluteConfigKey(["some", "key"]), type: test.type)
        #expect(result.value == ConfigValue(try #require(test.expected), isSecret: false))
        #expect(result.encodedKey == "some.key")
        // The snapshot reads the same way.
        let snapshot = provider.snapshot()
        #expect(try snapshot.value(forKey: AbsoluteConfigKey(["some", "key"]), type: test.type) == result)
    }

    @Test(arguments: mismatched)
    func aMismatchThrowsTheProvidersError(_ test: Case) throws {
        let provider = try Self.provider(storing: test.stored, under: "some.key")
        let key = AbsoluteConfigKey(["some", "key"])
        #expect(throws: DefaultsProviderError.self) { try provider.value(forKey: key, type: test.type) }
        #expect(throws: DefaultsProviderError.self) { try provider.snapshot().value(forKey: key, type: test.type) }
    }

    @Test func theErrorNamesTheKeyAndTypesButNotTheValue() throws {
        let provider = try Self.provider(storing: .string("hunter2"), under: "db.port")
        do {
            _ = try provider.value(forKey: AbsoluteConfigKey(["db", "port"]), type: .int)
            Issue.record("no error")
        } catch let error as DefaultsProviderError {
            #expect(error == .valueNotConvertible(key: "db.port", type: .int, stored: "a string"))
            #expect(error.description == #""db.port" holds a string, which is not an int"#)
            #expect(!"\(error)".contains("hunter2"))
        }
    }

    @Test func aReaderFallsBackToTheDefaultOrThrowsOnAMismatch() async throws {
        let adapter = DefaultsAdapter(store: InMemoryStore(), keyStore: DefaultsKeys())
        try adapter.set("soon", for: Key<String>("http.timeout", default: ""))
        let reader = ConfigReader(provider: DefaultsProvider(adapter))
        #expect(reader.int(forKey: "http.timeout", default: 5) == 5)
        #expect(reader.int(forKey: "http.timeout") == nil)
        #expect(reader.string(forKey: "http.timeout") == "soon")
        #expect(throws: DefaultsProviderError.self) { try reader.requiredInt(forKey: "http.timeout") }
        await #expect(throws: DefaultsProviderError.self) { try await reader.fetchRequiredInt(forKey: "http.timeout") }
    }

    @Test func valuesWrittenThroughTypedKeysReadBackThroughAReader() throws {
        let adapter = DefaultsAdapter(store: InMemoryStore(), keyStore: DefaultsKeys())
        try adapter.set(30, for: Key<Int>("http.timeout", default: 0))
        try adapter.set(0.75, for: Key<Double>("http.ratio", default: 0))
        try adapter.set(true, for: Key<Bool>("feature.enabled", default: false))
        try adapter.set("db.example.com", for: Key<String>("db.host", default: ""))
        try adapter.set(Data([0xCA, 0xFE]), for: Key<Data>("db.salt", default: Data()))
        try adapter.set(["a", "b"], for: Key<[String]>("http.hosts", default: []))
        try adapter.set([80, 443], for: Key<[Int]>("http.ports", default: []))
        // Stored as text, since a `<real>` cannot carry it.
        try adapter.set(-0.0, for: Key<Double>("offset", default: 1))

        let reader = ConfigReader(provider: DefaultsProvider(adapter))
        #expect(reader.int(forKey: "http.timeout") == 30)
        #expect(reader.double(forKey: "http.timeout") == 30)
        #expect(reader.double(forKey: "http.ratio") == 0.75)
        #expect(reader.bool(forKey: "feature.enabled") == true)
        #expect(reader.string(forKey: "db.host") == "db.example.com")
        #expect(reader.bytes(forKey: "db.salt") == [0xCA, 0xFE])
        #expect(reader.stringArray(forKey: "http.hosts") == ["a", "b"])
        #expect(reader.intArray(forKey: "http.ports") == [80, 443])
        let offset = try #require(reader.double(forKey: "offset"))
        #expect(offset == 0 && offset.sign == .minus)
        #expect(reader.int(forKey: "absent", default: 9) == 9)
    }

    static func provider(storing value: PropertyListValue, under name: String) throws -> DefaultsProvider {
        let adapter = DefaultsAdapter(store: InMemoryStore(), keyStore: DefaultsKeys())
        try adapter.set(value, for: Key<PropertyListValue?>(name))
        return DefaultsProvider(adapter)
    }
}
