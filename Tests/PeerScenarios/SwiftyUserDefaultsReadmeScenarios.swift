import Foundation
import Testing

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

    // S6: Codable.
    fileprivate var frog: Key<FrogCodable?> { .init("frog") }
    fileprivate var froggies: Key<[FrogCodable]?> { .init("froggies") }

    // S8: RawRepresentable.
    fileprivate var bestFroggy: Key<BestFroggiesEnum?> { .init("bestFroggy") }
    fileprivate var bestFroggies: Key<[BestFroggiesEnum]?> { .init("bestFroggies") }

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

        /// S1: keys declared as computed properties of the key store. A fresh suite reads the optional key as
        /// `nil` and the other as its default, and neither read stores anything.
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

        /// S2: the README's main usage through key paths: assignment, `+=` and `-=` on numbers and strings, and
        /// in-place mutation of an array element through the subscript. Each operation reads, changes and writes
        /// back, and the file holds the plain property-list values.
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

            #expect(Defaults[\.hotkeyEnabled])
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

            #expect(Defaults[\.username] == "frog")
            #expect(Defaults[\.launchCount] == 2)
            #expect(Defaults[\.libraries] == ["SwiftyUserDefaults 2.0"])
            let file = try ScenarioSuite.fileContents()
            #expect(file["username"] as? String == "frog")
            #expect(file["launchCount"] as? Int == 2)
        }

        /// S4: a key made on the spot, outside the key store, read and written with the labelled subscript;
        /// the value comes back typed, not optional. The unlabelled subscript reads the same key.
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
    }
}
