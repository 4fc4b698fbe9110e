import Foundation
import Testing
import enum TypedDefaultsTestSupport.BuiltProducts

@testable import TypedDefaults

// The examples of SwiftyUserDefaults' README (S1…S18), written as a user switching to TypedDefaults would write
// them, against this module's own global `Defaults` (a shared suite in a temporary directory). Each scenario
// says which example it covers and what it checks; where TypedDefaults deliberately behaves otherwise, the
// comment says so and the test asserts what TypedDefaults does.
//
// The keys and types are `fileprivate`, so that other files of this module may declare their own of the same
// names. Classes that go through a keyed archive are the exception: on Linux the archiver names only internal,
// top-level classes.

// MARK: - Keys, as a SwiftyUserDefaults user declares them

extension DefaultsKeys {
    // S1: an optional key without a default, and a key with one.
    fileprivate var username: Key<String?> { .init("username") }
    fileprivate var launchCount: Key<Int> { .init("launchCount", default: 0) }

    // S2, S3: the keys the README's usage implies.
    fileprivate var hotkeyEnabled: Key<Bool> { .init("hotkeyEnabled", default: false) }
    fileprivate var volume: Key<Double> { .init("volume", default: 1.0) }
    fileprivate var strings: Key<String> { .init("strings", default: "") }
    fileprivate var libraries: Key<[String]> { .init("libraries", default: []) }
    fileprivate var color: Key<PaletteColor?> { .init("color") }

    // S5: the README's table of built-in types.
    fileprivate var title: Key<String> { .init("title", default: "") }
    fileprivate var retries: Key<Int> { .init("retries", default: 0) }
    fileprivate var ratio: Key<Double> { .init("ratio", default: 0) }
    fileprivate var enabled: Key<Bool> { .init("enabled", default: false) }
    fileprivate var blob: Key<Data> { .init("blob", default: Data()) }
    fileprivate var lastSeen: Key<Date?> { .init("lastSeen") }
    fileprivate var homepage: Key<URL?> { .init("homepage") }
    fileprivate var titles: Key<[String]> { .init("titles", default: []) }
    fileprivate var retryList: Key<[Int]> { .init("retryList", default: []) }
    fileprivate var ratios: Key<[Double]> { .init("ratios", default: []) }
    fileprivate var switches: Key<[Bool]> { .init("switches", default: []) }
    fileprivate var blobs: Key<[Data]> { .init("blobs", default: []) }
    fileprivate var dates: Key<[Date]> { .init("dates", default: []) }
    fileprivate var links: Key<[URL]> { .init("links", default: []) }
    fileprivate var window: Key<[String: PropertyListValue]> { .init("window", default: [:]) }
    fileprivate var history: Key<[[String: PropertyListValue]]> { .init("history", default: []) }

    // S6: Codable.
    fileprivate var frog: Key<FrogCodable?> { .init("frog") }
    fileprivate var froggies: Key<[FrogCodable]?> { .init("froggies") }

    // S7: NSCoding.
    fileprivate var archivedFrog: Key<FrogSerializable?> { .init("archivedFrog") }
    fileprivate var archivedFroggies: Key<[FrogSerializable]?> { .init("archivedFroggies") }

    // S8: RawRepresentable.
    fileprivate var bestFroggy: Key<BestFroggiesEnum?> { .init("bestFroggy") }
    fileprivate var bestFroggies: Key<[BestFroggiesEnum]?> { .init("bestFroggies") }

    // A type that is both Codable and RawRepresentable: by the rule, and with the other bridge named.
    fileprivate var mood: Key<Mood> { .init("mood", default: .calm) }
    fileprivate var jsonMood: Key<JSONMood> { .init("jsonMood", default: .calm) }

    // S9: a class of another module, through a wrapper.
    fileprivate var timeZone: Key<NSTimeZone?> { .init("timeZone") }

    // S10: a type with a bridge of its own.
    fileprivate var customFrog: Key<FrogCustomSerializable?> { .init("customFrog") }
    fileprivate var customFroggies: Key<[FrogCustomSerializable]?> { .init("customFroggies") }

    // S11: the property-wrapper example.
    fileprivate var userColorScheme: Key<String> { .init("userColorScheme", default: "default") }
    fileprivate var userThemeName: Key<String?> { .init("userThemeName") }
    fileprivate var userLastLoginDate: Key<Date?> { .init("userLastLoginDate") }

    // S12–S14: the observed key (a property of the store for S13's key-path spelling).
    fileprivate var nameKey: Key<String> { .init("name", default: "") }

    // S15, S18: the launch-argument example.
    fileprivate var skipLogin: Key<Bool> { .init("skipLogin", default: false) }
    fileprivate var loginTries: Key<Int> { .init("loginTries", default: 0) }
    fileprivate var lastGameTime: Key<Double> { .init("lastGameTime", default: 0) }
    fileprivate var nickname: Key<String> { .init("nickname", default: "") }
}

// MARK: - Types, as the README declares them

/// S6: a Codable class, opted in with one line.
private final class FrogCodable: Codable, Sendable {
    let name: String
    init(name: String) { self.name = name }
}

extension FrogCodable: DefaultsSerializable {}

/// S2: a color stored through `NSCoding` (the README's `NSColor`, which Linux does not have).
final class PaletteColor: NSObject, NSCoding {
    let whiteComponent: Double

    init(white: Double) { whiteComponent = white }

    required init?(coder: NSCoder) {
        whiteComponent = coder.decodeDouble(forKey: "white")
    }

    func encode(with coder: NSCoder) { coder.encode(whiteComponent, forKey: "white") }
}

extension PaletteColor: DefaultsSerializable {}

/// S7: an `NSCoding` class (not `NSSecureCoding`), opted in with one line.
final class FrogSerializable: NSObject, NSCoding {
    let name: String

    init(name: String) { self.name = name }

    required init?(coder: NSCoder) {
        guard let name = coder.decodeObject(forKey: "name") as? String else { return nil }
        self.name = name
    }

    func encode(with coder: NSCoder) { coder.encode(name, forKey: "name") }
}

extension FrogSerializable: DefaultsSerializable {}

/// A `String` enum that is also `Codable`: stored as its raw value, by the rule.
private enum Mood: String, Codable, DefaultsSerializable {
    case calm, wild
}

/// The same, naming the JSON bridge instead (for settings stored through SwiftyUserDefaults' Codable bridge).
private enum JSONMood: String, Codable {
    case calm, wild
}

extension JSONMood: DefaultsSerializable {
    static var bridge: CodableBridge<Self> { .init() }
}

// S9: a class of another module that is not final (Foundation's `NSTimeZone` here, where the README extends
// `UIColor`), conforming with one line, as the README shows.
extension NSTimeZone: DefaultsSerializable {}

/// S8: an enum stored as its raw value.
private enum BestFroggiesEnum: String, DefaultsSerializable {
    case Andy, Dandy
}

/// S10: a type whose bridge stores only its name, as a plain string.
private struct FrogCustomSerializable: Equatable, Sendable {
    let name: String
}

private struct FrogBridge: DefaultsBridge {
    func serialize(_ frog: FrogCustomSerializable) -> PropertyListValue? { .string(frog.name) }

    func deserialize(_ stored: PropertyListValue) -> FrogCustomSerializable? {
        stored.stringValue.map(FrogCustomSerializable.init(name:))
    }
}

extension FrogCustomSerializable: DefaultsSerializable {
    static var bridge: FrogBridge { FrogBridge() }
}

// MARK: - Scenarios

extension PeerScenarios {
    @Suite("SwiftyUserDefaults README")
    struct SwiftyUserDefaultsReadme {
        init() {
            Defaults.removeAll()
        }

        // MARK: Keys and access (S1–S4)

        /// S1: keys declared as computed properties of the key store.
        ///
        /// A fresh suite reads the optional key as `nil` and the other as its default, and neither read stores
        /// anything.
        @Test("S1 keys in the key store read nil and their default, storing nothing")
        func s1KeyStore() throws {
            #expect(Defaults[\.username] == nil)
            #expect(Defaults[\.launchCount] == 0)
            #expect(!Defaults.hasKey(\.username))
            #expect(!Defaults.hasKey(\.launchCount))
            let keys = DefaultsKeys()
            #expect(keys.username.name == "username")
            #expect(keys.launchCount.defaultValue == 0)
        }

        /// S2: the README's main usage, through key paths.
        ///
        /// Assignment, `+=` and `-=` on numbers and strings, in-place mutation of an array element through the
        /// subscript, and an optional color archived through `NSCoding` (a small class stands in for `NSColor`,
        /// which Linux does not have): each operation reads, changes and writes back, and the file holds the
        /// plain property-list values and the archive.
        @Test("S2 key-path subscripts: assign, compound operators, in-place array mutation")
        func s2KeyPaths() throws {
            #expect(Defaults[\.username] == nil)
            Defaults[\.hotkeyEnabled] = true
            Defaults[\.launchCount] += 1
            Defaults[\.volume] -= 0.1
            Defaults[\.strings] += "Hello, "
            Defaults[\.strings] += "frogs"
            Defaults[\.libraries].append("SwiftyUserDefaults")
            Defaults[\.libraries][0] += " 2.0"
            Defaults[\.color] = PaletteColor(white: 1)

            #expect(Defaults[\.hotkeyEnabled])
            #expect(Defaults[\.color]?.whiteComponent == 1.0)
            #expect(Defaults[\.launchCount] == 1)
            #expect(Defaults[\.volume] == 1.0 - 0.1)
            #expect(Defaults[\.strings] == "Hello, frogs")
            #expect(Defaults[\.libraries] == ["SwiftyUserDefaults 2.0"])

            let file = try ScenarioSuite.fileContents()
            #expect(file["hotkeyEnabled"] as? Bool == true)
            #expect(file["launchCount"] as? Int == 1)
            #expect(file["volume"] as? Double == 1.0 - 0.1)
            #expect(file["strings"] as? String == "Hello, frogs")
            #expect(file["libraries"] as? [String] == ["SwiftyUserDefaults 2.0"])
            #expect(file["color"] is Data, "a keyed archive")
        }

        /// S3: the same operations spelled as dynamic members (`Defaults.launchCount += 1`); they read and
        /// write the very same keys as the key-path spelling.
        @Test("S3 dynamic members are the same keys as the key paths")
        func s3DynamicMembers() throws {
            #expect(Defaults.username == nil)
            Defaults.username = "frog"
            Defaults.launchCount += 1
            Defaults.launchCount += 1
            Defaults.libraries.append("SwiftyUserDefaults")
            Defaults.libraries[0] += " 2.0"
            Defaults.color = PaletteColor(white: 0.5)

            #expect(Defaults[\.username] == "frog")
            #expect(Defaults[\.color]?.whiteComponent == 0.5)
            #expect(Defaults[\.launchCount] == 2)
            #expect(Defaults[\.libraries] == ["SwiftyUserDefaults 2.0"])
            let file = try ScenarioSuite.fileContents()
            #expect(file["username"] as? String == "frog")
            #expect(file["launchCount"] as? Int == 2)
        }

        /// S4: a key made on the spot, outside the key store.
        ///
        /// Read and written with the labelled subscript, the value comes back typed, not optional; the
        /// unlabelled subscript reads the same key.
        @Test("S4 a key outside the key store, through [key:]")
        func s4KeyWithoutStore() throws {
            let colorKey = Key<String>("color", default: "")
            #expect(Defaults[key: colorKey] == "")
            Defaults[key: colorKey] = "red"
            let color: String = Defaults[key: colorKey]
            #expect(color == "red")
            #expect(Defaults[colorKey] == "red")
            #expect(try ScenarioSuite.fileContents()["color"] as? String == "red")
        }

        // MARK: Types (S5, S6, S8, S10)

        /// S5: every type of the README's table, and arrays of each, written and read back.
        ///
        /// Strings, numbers, Booleans, data and arrays of them are stored as the same plain property-list values
        /// SwiftyUserDefaults stores. Dates and URLs differ on purpose: a date is stored as an exact ISO 8601
        /// string (Linux's XML writer keeps whole seconds of a native date) and a URL as its absolute string
        /// (Foundation's own URL setter keeps only the path on Linux, and archives the URL on Apple platforms).
        @Test("S5 the README's types and their arrays round-trip; dates and URLs are stored as text")
        func s5BuiltInTypes() throws {
            let date = Date(timeIntervalSinceReferenceDate: 700_000_000.25)
            let url = try #require(URL(string: "https://example.com/frogs?sort=name#top"))
            Defaults.title = "Frog"
            Defaults.retries = 3
            Defaults.ratio = 0.25
            Defaults.enabled = true
            Defaults.blob = Data([1, 2, 3])
            Defaults.lastSeen = date
            Defaults.homepage = url
            Defaults.titles = ["a", "b"]
            Defaults.retryList = [1, 2]
            Defaults.ratios = [0.5, 1.5]
            Defaults.switches = [true, false]
            Defaults.blobs = [Data([7]), Data()]
            Defaults.dates = [date]
            Defaults.links = [url]

            #expect(Defaults.title == "Frog")
            #expect(Defaults.retries == 3)
            #expect(Defaults.ratio == 0.25)
            #expect(Defaults.enabled)
            #expect(Defaults.blob == Data([1, 2, 3]))
            #expect(Defaults.lastSeen == date)
            #expect(Defaults.homepage == url)
            #expect(Defaults.titles == ["a", "b"])
            #expect(Defaults.retryList == [1, 2])
            #expect(Defaults.ratios == [0.5, 1.5])
            #expect(Defaults.switches == [true, false])
            #expect(Defaults.blobs == [Data([7]), Data()])
            #expect(Defaults.dates == [date])
            #expect(Defaults.links == [url])

            let file = try ScenarioSuite.fileContents()
            #expect(file["title"] as? String == "Frog")
            #expect(file["retries"] as? Int == 3)
            #expect(file["ratio"] as? Double == 0.25)
            #expect(file["enabled"] as? Bool == true)
            #expect(file["blob"] as? Data == Data([1, 2, 3]))
            #expect(file["titles"] as? [String] == ["a", "b"])
            #expect(file["retryList"] as? [Int] == [1, 2])
            #expect(file["ratios"] as? [Double] == [0.5, 1.5])
            #expect(file["switches"] as? [Bool] == [true, false])
            #expect(file["blobs"] as? [Data] == [Data([7]), Data()])
            // Deliberately not SwiftyUserDefaults' forms: text that keeps every digit and every part.
            let storedDate = try #require(file["lastSeen"] as? String)
            #expect(storedDate.hasSuffix(".25Z"))
            #expect(file["dates"] as? [String] == [storedDate])
            #expect(file["homepage"] as? String == url.absoluteString)
            #expect(file["links"] as? [String] == [url.absoluteString])
        }

        /// S5, settings already stored: what SwiftyUserDefaults wrote for the table's types reads as it is.
        ///
        /// Native strings, numbers, Booleans, data and dates, arrays of them, and a URL archived with
        /// Foundation's keyed archiver (SwiftyUserDefaults' URL form on Linux, and Foundation's on Apple
        /// platforms). Numbers and Booleans stored as text (as a launch argument or `defaults write` leaves them)
        /// read too, as SwiftyUserDefaults reads them.
        @Test("S5 SwiftyUserDefaults' stored forms of the table's types read as they are")
        func s5AlreadyStored() throws {
            // Whole seconds: Foundation's XML property-list writer on Linux keeps no fraction of a native date.
            let date = Date(timeIntervalSinceReferenceDate: 700_000_000)
            let url = try #require(URL(string: "https://example.com/frogs?sort=name#top"))
            try Self.storeAsPeerDid([
                "title": "Frog",
                "retries": 3,
                "ratio": 0.25,
                "enabled": true,
                "blob": Data([1, 2, 3]),
                "lastSeen": date,
                "homepage": try NSKeyedArchiver.archivedData(withRootObject: url, requiringSecureCoding: false),
                "titles": ["a", "b"],
                "retryList": [1, 2],
                "ratios": [0.5, 1.5],
                "switches": [true, false],
                "blobs": [Data([7]), Data()],
                "dates": [date],
            ])
            #expect(Defaults.title == "Frog")
            #expect(Defaults.retries == 3)
            #expect(Defaults.ratio == 0.25)
            #expect(Defaults.enabled)
            #expect(Defaults.blob == Data([1, 2, 3]))
            #expect(Defaults.lastSeen == date)
            #expect(Defaults.homepage == url)
            #expect(Defaults.titles == ["a", "b"])
            #expect(Defaults.retryList == [1, 2])
            #expect(Defaults.ratios == [0.5, 1.5])
            #expect(Defaults.switches == [true, false])
            #expect(Defaults.blobs == [Data([7]), Data()])
            #expect(Defaults.dates == [date])

            try Self.storeAsPeerDid(["retries": "4", "ratio": "0.5", "enabled": "YES"])
            #expect(Defaults.retries == 4)
            #expect(Defaults.ratio == 0.5)
            #expect(Defaults.enabled)
        }

        /// S6: a Codable class opted in with one line, in an optional key and an optional array key.
        ///
        /// Values read back, and `nil` removes the key. TypedDefaults deliberately stores JSON as a string
        /// (sorted keys, readable in the file; SwiftyUserDefaults stored data), and an array as an array of
        /// such strings; it reads SwiftyUserDefaults' JSON data for a single value as it is.
        @Test("S6 Codable values: JSON text, and SwiftyUserDefaults' JSON data read as it is")
        func s6Codable() throws {
            Defaults.frog = FrogCodable(name: "Froggy")
            Defaults.froggies = [FrogCodable(name: "Andy"), FrogCodable(name: "Dandy")]
            #expect(Defaults.frog?.name == "Froggy")
            #expect(Defaults.froggies?.map(\.name) == ["Andy", "Dandy"])
            let file = try ScenarioSuite.fileContents()
            #expect(file["frog"] as? String == #"{"name":"Froggy"}"#)
            #expect(file["froggies"] as? [String] == [#"{"name":"Andy"}"#, #"{"name":"Dandy"}"#])

            Defaults.frog = nil
            #expect(Defaults.frog == nil)
            #expect(!Defaults.hasKey(\.frog))

            // What SwiftyUserDefaults stored: the JSON encoder's output, as data.
            try Self.storeAsPeerDid(["frog": try JSONEncoder().encode(FrogCodable(name: "Stored"))])
            #expect(Defaults.frog?.name == "Stored")
        }

        /// S8: an enum stored as its raw value, in an optional key and an optional array key.
        ///
        /// The file holds the raw strings, as SwiftyUserDefaults stores them, and those read back. One
        /// deliberate difference: an array holding a raw value the enum does not have reads as the key's
        /// default (here `nil`, with a diagnostic) rather than without that element, so no data is dropped
        /// silently by the next write.
        @Test("S8 raw-value enums are stored as their raw values, alone and in arrays")
        func s8RawRepresentable() throws {
            Defaults.bestFroggy = .Andy
            Defaults.bestFroggies = [.Andy, .Dandy]
            #expect(Defaults.bestFroggy == .Andy)
            #expect(Defaults.bestFroggies == [.Andy, .Dandy])
            let file = try ScenarioSuite.fileContents()
            #expect(file["bestFroggy"] as? String == "Andy")
            #expect(file["bestFroggies"] as? [String] == ["Andy", "Dandy"])

            try Self.storeAsPeerDid(["bestFroggy": "Dandy", "bestFroggies": ["Dandy", "Andy"]])
            #expect(Defaults.bestFroggy == .Dandy)
            #expect(Defaults.bestFroggies == [.Dandy, .Andy])

            try Self.storeAsPeerDid(["bestFroggies": ["Andy", "Randy"]])
            #expect(Defaults.bestFroggies == nil)
        }

        /// S10: a type with a bridge of its own, which stores a frog as its name.
        ///
        /// The file holds a plain string for one frog and a plain array of names for an array of frogs, the
        /// forms SwiftyUserDefaults' README bridges write; arrays need no second bridge in TypedDefaults.
        @Test("S10 a custom bridge: a plain string, and an array of them with no array bridge")
        func s10CustomBridge() throws {
            Defaults.customFrog = FrogCustomSerializable(name: "Froggy")
            Defaults.customFroggies = [FrogCustomSerializable(name: "Andy"), FrogCustomSerializable(name: "Dandy")]
            #expect(Defaults.customFrog == FrogCustomSerializable(name: "Froggy"))
            #expect(Defaults.customFroggies?.map(\.name) == ["Andy", "Dandy"])
            let file = try ScenarioSuite.fileContents()
            #expect(file["customFrog"] as? String == "Froggy")
            #expect(file["customFroggies"] as? [String] == ["Andy", "Dandy"])

            try Self.storeAsPeerDid(["customFrog": "Stored", "customFroggies": ["B", "C"]])
            #expect(Defaults.customFrog?.name == "Stored")
            #expect(Defaults.customFroggies?.map(\.name) == ["B", "C"])
        }

        /// S5: the table's `[String: Any]` and `[[String: Any]]`, as `PropertyListValue` dictionaries.
        ///
        /// Values written with literals are stored as plain property-list dictionaries (SwiftyUserDefaults'
        /// form), read back typed with `get(_:)`, and a dictionary SwiftyUserDefaults stored reads as it is.
        @Test("S5 [String: Any] keys: PropertyListValue dictionaries, stored plainly")
        func s5Dictionaries() throws {
            Defaults.window = ["width": 800, "title": "Main", "tabs": ["a", "b"], "ratio": 0.5]
            Defaults.history = [["page": 1], ["page": 2, "pinned": true]]
            #expect(Defaults.window["width"]?.get(Int.self) == 800)
            #expect(Defaults.window["title"]?.get(String.self) == "Main")
            #expect(Defaults.window["tabs"]?.get([String].self) == ["a", "b"])
            #expect(Defaults.history.count == 2)
            #expect(Defaults.history[1]["pinned"]?.get(Bool.self) == true)

            let file = try ScenarioSuite.fileContents()
            let window = try #require(file["window"] as? [String: Any])
            #expect(window["width"] as? Int == 800)
            #expect(window["title"] as? String == "Main")
            #expect(window["tabs"] as? [String] == ["a", "b"])
            #expect(window["ratio"] as? Double == 0.5)
            let history = try #require(file["history"] as? [[String: Any]])
            #expect(history.map { $0["page"] as? Int } == [1, 2])

            try Self.storeAsPeerDid(["window": ["width": 1024, "title": "Stored"], "history": [["page": 7]]])
            #expect(Defaults.window == ["width": 1024, "title": "Stored"])
            #expect(Defaults.history == [["page": 7]])
        }

        /// S7: an `NSCoding` class (not secure coding) opted in with one line, in an optional key and an
        /// optional array key.
        ///
        /// A value is stored as a keyed archive, which Foundation's unarchiver reads, and SwiftyUserDefaults'
        /// archive of a value reads as it is. An array is stored as an array of archives, one per element
        /// (SwiftyUserDefaults archived the whole array as one; see the migration guide's exceptions).
        @Test("S7 NSCoding classes: keyed archives, SwiftyUserDefaults' archive read as it is")
        func s7NSCoding() throws {
            Defaults.archivedFrog = FrogSerializable(name: "Froggy")
            Defaults.archivedFroggies = [FrogSerializable(name: "Andy"), FrogSerializable(name: "Dandy")]
            #expect(Defaults.archivedFrog?.name == "Froggy")
            #expect(Defaults.archivedFroggies?.map(\.name) == ["Andy", "Dandy"])

            let file = try ScenarioSuite.fileContents()
            let archive = try #require(file["archivedFrog"] as? Data)
            let unarchiver = try NSKeyedUnarchiver(forReadingFrom: archive)
            unarchiver.requiresSecureCoding = false
            let unarchived = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? FrogSerializable
            #expect(unarchived?.name == "Froggy")
            #expect((file["archivedFroggies"] as? [Data])?.count == 2)

            Defaults.archivedFrog = nil
            #expect(!Defaults.hasKey(\.archivedFrog))

            let stored = try NSKeyedArchiver.archivedData(
                withRootObject: FrogSerializable(name: "Stored"),
                requiringSecureCoding: false
            )
            try Self.storeAsPeerDid(["archivedFrog": stored])
            #expect(Defaults.archivedFrog?.name == "Stored")
        }

        /// S9: a class of another module that is not final (the README extends `UIColor`) adopts
        /// `DefaultsSerializable` with one line, and is stored as a keyed archive.
        ///
        /// Checks that the value comes back, that the file holds an archive, and that an archive of the class
        /// as SwiftyUserDefaults stored it (made without secure coding) reads as it is.
        @Test("S9 a framework class that is not final adopts DefaultsSerializable with one line")
        func s9FrameworkClass() throws {
            let paris = try #require(NSTimeZone(name: "Europe/Paris"))
            Defaults.timeZone = paris
            #expect(Defaults.timeZone?.name == "Europe/Paris")
            #expect(try ScenarioSuite.fileContents()["timeZone"] is Data)

            let tokyo = try #require(NSTimeZone(name: "Asia/Tokyo"))
            let stored = try NSKeyedArchiver.archivedData(withRootObject: tokyo, requiringSecureCoding: false)
            try Self.storeAsPeerDid(["timeZone": stored])
            #expect(Defaults.timeZone?.name == "Asia/Tokyo")
        }

        /// A type that is both `Codable` and `RawRepresentable`, which SwiftyUserDefaults made its users resolve
        /// by hand, picking one bridge.
        ///
        /// By TypedDefaults' rule the raw value wins, so the raw string (the raw-value choice's form) reads as
        /// it is and is what gets written. A type whose users chose the Codable bridge names `CodableBridge` in
        /// its conformance, and then reads SwiftyUserDefaults' JSON data of the raw value.
        @Test("a Codable and RawRepresentable enum: raw value by default, JSON when named")
        func codableAndRawRepresentable() throws {
            Defaults.mood = .wild
            #expect(try ScenarioSuite.fileContents()["mood"] as? String == "wild")

            try Self.storeAsPeerDid(["mood": "calm", "jsonMood": try JSONEncoder().encode(JSONMood.wild)])
            #expect(Defaults.mood == .calm)
            #expect(Defaults.jsonMood == .wild)
        }

        /// Arrays SwiftyUserDefaults stored whole: an array of Codable values as one JSON data blob, and an
        /// array of URLs as one keyed archive.
        ///
        /// Both read as they are, through the typed keys; the next write stores TypedDefaults' form (an array of
        /// elements), which the file then holds.
        @Test("arrays stored as one blob read as they are")
        func arraysStoredAsOneBlob() throws {
            let url = try #require(URL(string: "https://example.com/frogs"))
            let file = try #require(URL(string: "file:///tmp/frogs.txt"))
            try Self.storeAsPeerDid([
                "froggies": try JSONEncoder().encode([FrogCodable(name: "Andy"), FrogCodable(name: "Dandy")]),
                "links": try NSKeyedArchiver.archivedData(withRootObject: [url, file], requiringSecureCoding: false),
            ])
            #expect(Defaults.froggies?.map(\.name) == ["Andy", "Dandy"])
            #expect(Defaults.links == [url, file])

            Defaults.links.append(url)
            #expect(try ScenarioSuite.fileContents()["links"] as? [String] == [url, file, url].map(\.absoluteString))
        }

        // MARK: Property wrappers (S11)

        /// S11's settings type: one property per option of the README's example.
        struct Settings {
            @Default(\.userColorScheme, adapter: Defaults) var userColorScheme
            @Default(\.userThemeName, adapter: Defaults, options: .cached) var userThemeName
            @Default(\.userLastLoginDate, adapter: Defaults, options: .cached) var userLastLoginDate
        }

        /// S11: property wrappers over keys, without options, `.cached`, and `[.cached, .observed]`, which
        /// TypedDefaults spells `.cached` (`.observed` is a deprecated name of it).
        ///
        /// Each property reads its key's default, and a write through it is stored. One deliberate difference:
        /// a `.cached` property follows every change of its key, made anywhere (SwiftyUserDefaults kept the first
        /// value read until the property was written), since a stale setting is a bug no caller asks for. The
        /// cache still spares reads the suite while the key does not change.
        @Test("S11 @Default with no options, .cached and [.cached, .observed] (spelled .cached)")
        func s11PropertyWrappers() throws {
            let settings = Settings()
            #expect(settings.userColorScheme == "default")
            #expect(settings.userThemeName == nil)
            #expect(settings.userLastLoginDate == nil)

            settings.userColorScheme = "dark"
            settings.userThemeName = "Solarized"
            let login = Date(timeIntervalSinceReferenceDate: 700_000_000.5)
            settings.userLastLoginDate = login
            #expect(Defaults.userColorScheme == "dark")
            #expect(settings.userThemeName == "Solarized")
            #expect(settings.userLastLoginDate == login)
            let file = try ScenarioSuite.fileContents()
            #expect(file["userColorScheme"] as? String == "dark")
            #expect(file["userThemeName"] as? String == "Solarized")

            // Written elsewhere in the process, through another adapter on the same suite.
            let elsewhere = DefaultsAdapter(store: Defaults.store, keyStore: DefaultsKeys())
            elsewhere.userColorScheme = "light"
            elsewhere.userThemeName = "Monokai"
            elsewhere.userLastLoginDate = nil
            #expect(settings.userColorScheme == "light")
            #expect(Self.eventually { settings.userThemeName == "Monokai" })
            #expect(Self.eventually { settings.userLastLoginDate == nil })
        }

        /// S11, `[.cached, .observed]`: a cached property sees the key written by another process.
        @Test("S11 a cached, observed property follows another process's write", .fileStoreOnly)
        func s11ObservedAcrossProcesses() throws {
            let settings = Settings()
            settings.userLastLoginDate = Date(timeIntervalSinceReferenceDate: 0)
            #expect(settings.userLastLoginDate == Date(timeIntervalSinceReferenceDate: 0))
            try Defaults.flush()
            // The helper writes text; a date key reads an ISO 8601 string as the date.
            let run = try Self.runHelper(["exit-call", ScenarioSuite.name, "userLastLoginDate", "2024-05-01T10:00:00Z"])
            #expect(run.status == 0, "\(run.output)")
            let expected = Date(timeIntervalSince1970: 1_714_557_600)
            #expect(Self.eventually { settings.userLastLoginDate == expected })
        }

        // MARK: Observation (S12–S14)

        /// S12: observing a key made on the spot, with the options SwiftyUserDefaults observes with by default.
        ///
        /// No event comes when observing starts; each write brings one event with the value before (the default
        /// when nothing was stored) and after, in order, and removing the value reports the default. Deliberate
        /// differences: the handler runs on the observation's queue unless `.synchronous` is asked for (the
        /// synchronous scenario below), and a write of the value already stored reports nothing.
        @Test("S12 observing a key: one event per change, with old and new values")
        func s12ObserveKey() throws {
            let nameKey = Key<String>("name", default: "")
            let changes = Recorder<DefaultsChange<String>>()
            let observation = Defaults.observe(nameKey, options: [.old, .new]) { changes.append($0) }
            defer { observation.invalidate() }
            Defaults[key: nameKey] = "Andy"
            Defaults[key: nameKey] = "Andy"
            Defaults[key: nameKey] = "Dandy"
            Defaults.reset(nameKey)
            // In order: the last change's arrival means every earlier one has arrived.
            #expect(Self.eventually { changes.count == 3 })
            #expect(changes.all.map(\.oldValue) == ["", "Andy", "Dandy"])
            #expect(changes.all.map(\.newValue) == ["Andy", "Dandy", ""])
            #expect(changes.all.allSatisfy { $0.key == "name" && !$0.isInitial })
        }

        /// S13: the same observation through a key path of the key store, with the default options.
        @Test("S13 observing through a key path of the key store")
        func s13ObserveKeyPath() throws {
            let changes = Recorder<DefaultsChange<String>>()
            let observation = Defaults.observe(\.nameKey) { changes.append($0) }
            defer { observation.invalidate() }
            Defaults.nameKey = "Andy"
            Defaults[key: Key<String>("name", default: "")] = "Dandy"
            #expect(Self.eventually { changes.count == 2 })
            #expect(changes.all.map(\.oldValue) == ["", "Andy"])
            #expect(changes.all.map(\.newValue) == ["Andy", "Dandy"])
        }

        /// S14: asking for the initial value as well.
        ///
        /// The first event comes at once, carrying the current value, then one per write. Deliberate
        /// difference: the initial event's old value is the current value too (SwiftyUserDefaults gave the
        /// key's default, which KVO's initial notification leaves it to guess), and the event says it is the
        /// initial one.
        @Test("S14 .initial: the current value first, marked as initial, then each change")
        func s14InitialEvent() throws {
            Defaults.nameKey = "Andy"
            let changes = Recorder<DefaultsChange<String>>()
            let observation = Defaults.observe(\.nameKey, options: [.initial, .old, .new]) { changes.append($0) }
            defer { observation.invalidate() }
            Defaults.nameKey = "Dandy"
            #expect(Self.eventually { changes.count == 2 })
            let initial = try #require(changes.all.first)
            #expect(initial.isInitial)
            #expect(initial.oldValue == "Andy" && initial.newValue == "Andy")
            #expect(changes.all.last?.oldValue == "Andy")
            #expect(changes.all.last?.newValue == "Dandy")
        }

        /// S12–S14: SwiftyUserDefaults' observers ran on the writing thread before the write returned; the
        /// `.synchronous` option does the same, and `invalidate()` (its disposable's `dispose()`) ends it.
        ///
        /// With `.initial`, the initial event has been delivered when `observe` returns. After
        /// `invalidate()`, further writes call nothing, and invalidating again is harmless.
        @Test("S12 synchronous observation: handled before the write returns; invalidate() disposes")
        func s12SynchronousAndDispose() throws {
            let changes = Recorder<DefaultsChange<String>>()
            let observation = Defaults.observe(\.nameKey, options: [.initial, .synchronous]) { changes.append($0) }
            #expect(changes.all.map(\.newValue) == [""])
            Defaults.nameKey = "Andy"
            #expect(changes.all.map(\.newValue) == ["", "Andy"])
            Defaults.nameKey = "Dandy"
            #expect(changes.all.map(\.newValue) == ["", "Andy", "Dandy"])
            observation.invalidate()
            observation.invalidate()
            Defaults.nameKey = "Randy"
            #expect(changes.count == 3)
            #expect(!observation.isActive)
        }

        // MARK: Launch arguments (S15)

        /// S15: typed keys read the README's launch arguments as Bool, Int, Double and String.
        ///
        /// Parsed here from an explicit argument list (the scenarios' suite ignores this process's own), over
        /// the same suite; the override is not stored.
        @Test("S15 launch arguments read through typed keys, never stored")
        func s15LaunchArguments() throws {
            let withArguments = DefaultsAdapter(
                store: Defaults.store,
                keyStore: DefaultsKeys(),
                launchArguments: .parsing([
                    "-skipLogin", "true", "-loginTries", "3", "-lastGameTime", "61.3", "-nickname", "sunshinejr",
                ])
            )
            #expect(withArguments.skipLogin)
            #expect(withArguments.loginTries == 3)
            #expect(withArguments.lastGameTime == 61.3)
            #expect(withArguments.nickname == "sunshinejr")
            #expect(!Defaults.skipLogin)
            #expect(!Defaults.hasKey(\.loginTries))
        }

        /// S15: every Boolean spelling SwiftyUserDefaults accepted in a launch argument, in either case.
        @Test("S15 Boolean launch arguments: true/t/yes/y/1 and false/f/no/n/0, any case")
        func s15BooleanSpellings() throws {
            for (text, expected) in [
                ("true", true), ("t", true), ("yes", true), ("y", true), ("1", true), ("TRUE", true), ("Y", true),
                ("false", false), ("f", false), ("no", false), ("n", false), ("0", false), ("No", false), ("F", false),
            ] {
                Defaults.skipLogin = !expected
                let withArgument = DefaultsAdapter(
                    store: Defaults.store,
                    keyStore: DefaultsKeys(),
                    launchArguments: .parsing(["-skipLogin", text])
                )
                #expect(withArgument.skipLogin == expected, "-skipLogin \(text)")
            }
        }

        /// S15 in a real process: arguments on the command line override the program's settings.
        @Test("S15 a child process reads its command-line arguments through typed keys")
        func s15LaunchArgumentsInChildProcess() throws {
            let run = try Self.runHelper([
                "print-settings", "-flag", "true", "-count", "3", "-ratio", "61.3", "-name", "sunshinejr",
            ])
            #expect(run.status == 0, "\(run.output)")
            let lines = Set(run.output.split(separator: "\n").map(String.init))
            #expect(lines.isSuperset(of: ["flag=true", "count=3", "ratio=61.3", "name=sunshinejr"]), "\(run.output)")
        }

        // MARK: The suite (S16–S18)

        /// S16: `removeAll()` removes every stored value of the suite, keys the key store declares and keys it
        /// does not; reads return the defaults again and the file holds nothing.
        @Test("S16 removeAll empties the suite")
        func s16RemoveAll() throws {
            Defaults.launchCount = 3
            Defaults.username = "frog"
            Defaults[key: Key<String?>("notInTheKeyStore")] = "kept by other code"
            Defaults.removeAll()
            #expect(Defaults.launchCount == 0)
            #expect(Defaults.username == nil)
            #expect(!Defaults.hasKey(Key<String?>("notInTheKeyStore")))
            // Through Foundation, a suite with nothing left has no file at all.
            #expect(((try? ScenarioSuite.fileContents()) ?? [:]).isEmpty)
        }

        /// S17: an app-wide adapter over a shared suite under the global name.
        ///
        /// Every `Defaults` call in the module goes to that suite: its file is where the suite lives, and
        /// another adapter on the suite (an app extension's, say) reads the same values.
        @Test("S17 the module's global Defaults is the shared suite; another adapter on it reads the same")
        func s17SharedSuite() throws {
            Defaults.launchCount += 1
            Defaults.username = "frog"
            #expect(try ScenarioSuite.fileContents()["username"] as? String == "frog")
            #if TYPED_DEFAULTS_FOUNDATION_STORAGE
            let other = try DefaultsAdapter(suiteName: ScenarioSuite.name, keyStore: DefaultsKeys())
            #else
            let other = try DefaultsAdapter(
                suiteName: ScenarioSuite.name,
                directory: ScenarioSuite.directory,
                keyStore: DefaultsKeys()
            )
            #endif
            #expect(other.launchCount == 1)
            #expect(other.username == "frog")
            #expect(other.store.name == Defaults.store.name)
        }

        /// S18: `hasKey` says whether the suite stores a value for the key.
        ///
        /// Deliberate difference: only stored values count. A launch argument (which SwiftyUserDefaults counted,
        /// as Foundation's argument domain shows through) overrides the read but is not stored, and there are no
        /// registered defaults to count.
        @Test("S18 hasKey: stored values only, not launch arguments")
        func s18HasKey() throws {
            #expect(!Defaults.hasKey(\.skipLogin))
            Defaults.skipLogin = true
            #expect(Defaults.hasKey(\.skipLogin))
            Defaults.reset(\.skipLogin)
            #expect(!Defaults.hasKey(\.skipLogin))

            let withArguments = DefaultsAdapter(
                store: Defaults.store,
                keyStore: DefaultsKeys(),
                launchArguments: .parsing(["-skipLogin", "YES"])
            )
            #expect(withArguments.skipLogin)
            #expect(!withArguments.hasKey(\.skipLogin))
        }

        // MARK: Support

        /// Writes `values` into the scenarios' suite as SwiftyUserDefaults would have left them (through
        /// Foundation), then waits until the suite reads them.
        private static func storeAsPeerDid(_ values: [String: Any]) throws {
            try Defaults.flush()
            #if TYPED_DEFAULTS_FOUNDATION_STORAGE
            // The suite's store is Foundation's instance for this file, which this one shares.
            let foundation = try #require(
                UserDefaults(suiteName: ScenarioSuite.directory.path + "/" + ScenarioSuite.name)
            )
            for (key, value) in values { foundation.set(value, forKey: key) }
            #else
            // What Foundation on Linux writes (an XML property list), merged into what the file holds.
            var contents = (try? ScenarioSuite.fileContents()) ?? [:]
            contents.merge(values) { _, new in new }
            let data = try PropertyListSerialization.data(fromPropertyList: contents, format: .xml, options: 0)
            try data.write(to: ScenarioSuite.file, options: .atomic)
            #endif
            let expected = values.mapValues(PropertyListValue.init(foundationObject:))
            #expect(
                eventually { expected.allSatisfy { Defaults[key: Key<PropertyListValue?>($0.key)] == $0.value } },
                "the suite did not read what was stored"
            )
        }

        /// Waits, up to ten seconds, until `condition` holds; returns whether it did.
        private static func eventually(_ condition: () -> Bool) -> Bool {
            let deadline = ContinuousClock.now + .seconds(10)
            while !condition() {
                guard ContinuousClock.now < deadline else { return false }
                usleep(5000)
            }
            return true
        }

        /// Runs the package's test helper as another process whose config directory is the scenarios' suite's.
        private static func runHelper(_ arguments: [String]) throws -> (status: Int32, output: String) {
            let output = FileManager.default.temporaryDirectory
                .appendingPathComponent("PeerScenarios-helper-\(UUID().uuidString)")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            defer { try? FileManager.default.removeItem(at: output) }
            let process = Process()
            process.executableURL = helperExecutable
            process.arguments = arguments
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_CONFIG_HOME"] = ScenarioSuite.directory.path
            environment["HOME"] = ScenarioSuite.directory.path
            process.environment = environment
            let handle = try FileHandle(forWritingTo: output)
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
            process.waitUntilExit()
            try handle.close()
            return (process.terminationStatus, try String(contentsOf: output, encoding: .utf8))
        }

        /// The helper executable, built beside the test binary.
        private static var helperExecutable: URL { BuiltProducts.executable("TypedDefaultsTestHelper") }
    }
}

/// Collects what handlers receive, from whichever thread they run on.
private final class Recorder<Item: Sendable>: Sendable {
    private let items = Locked<[Item]>([])
    func append(_ item: Item) { items.withLock { $0.append(item) } }
    var all: [Item] { items.withLock { $0 } }
    var count: Int { items.withLock { $0.count } }
}

extension Trait where Self == ConditionTrait {
    /// A scenario that needs the Linux file store (which tells this process of other processes' writes):
    /// skipped in a build that stores through Foundation's `UserDefaults`, which on Linux does not.
    fileprivate static var fileStoreOnly: Self {
        .disabled(
            if: storesThroughFoundation,
            "Foundation's UserDefaults on Linux does not tell of other processes' writes"
        )
    }
}

/// Whether this build keeps suites in Foundation's `UserDefaults`.
private let storesThroughFoundation: Bool = {
    #if TYPED_DEFAULTS_FOUNDATION_STORAGE
    true
    #else
    false
    #endif
}()
