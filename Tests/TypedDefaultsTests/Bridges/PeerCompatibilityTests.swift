import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// Users switching from sindresorhus/Defaults, SwiftyUserDefaults or plain `UserDefaults` keep their settings.
@Suite("Reading what others wrote")
struct PeerCompatibilityTests {
    @Test("sindresorhus/Defaults: Codable as a JSON string, enums and URLs JSON-quoted")
    func sindresorhusDefaults() {
        let suite = IsolatedSuite(fileContents: [
            "profile": #"{"name":"Ann","tags":["a"],"joined":816942874.5}"#,
            "theme": #""dark""#,
            "site": #""https:\/\/example.com\/a?b=1""#,
            "id": #""E621E1F8-C36C-495A-93FC-0C247A3E6E5F""#,
        ])
        let defaults = suite.adapter
        #expect(
            defaults.profile
                == Profile(name: "Ann", tags: ["a"], joined: Date(timeIntervalSinceReferenceDate: 816_942_874.5))
        )
        #expect(defaults.theme == .dark)
        #expect(defaults[key: Key<URL?>("site")] == URL(string: "https://example.com/a?b=1"))
        #expect(defaults[key: Key<UUID?>("id")] == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
    }

    @Test("SwiftyUserDefaults: Codable as JSON data")
    func swiftyUserDefaults() {
        let suite = IsolatedSuite(fileContents: ["profile": Data(#"{"name":"Bo","tags":[],"joined":0}"#.utf8)])
        let defaults = suite.adapter
        #expect(defaults.profile == Profile(name: "Bo", tags: [], joined: Date(timeIntervalSinceReferenceDate: 0)))
    }

    @Test("Foundation: native dates, path-only URLs, numbers and Booleans written as text")
    func foundationForms() {
        let suite = IsolatedSuite(fileContents: [
            "date": Date(timeIntervalSinceReferenceDate: 1000),
            "path": "/tmp/some file.txt",
            "count": "3",
            "flag": "YES",
            "ratio": "0.5",
            "small": 3.0,
        ])
        let defaults = suite.adapter
        #expect(defaults[key: Key<Date?>("date")] == Date(timeIntervalSinceReferenceDate: 1000))
        #expect(defaults[key: Key<URL?>("path")] == URL(fileURLWithPath: "/tmp/some file.txt"))
        #expect(defaults[key: Key<Int>("count", default: 0)] == 3)
        #expect(defaults[key: Key<Bool>("flag", default: false)] == true)
        #expect(defaults[key: Key<Double>("ratio", default: 0)] == 0.5)
        #expect(defaults[key: Key<Int>("small", default: 0)] == 3)
    }

    @Test("hand-edited strings are read by the text rules of launch arguments and the defaults tool")
    func handEditedText() {
        let suite = IsolatedSuite(fileContents: [
            "when": "2026-11-21 08:26:05 +0000",
            "huge": "18446744073709551615",
            "flag": "yes",
            "ratio": "-0.0",
            "price": "19.99",
            "site": "/tmp/a b",
            "real": "3.0",
        ])
        let defaults = suite.adapter
        #expect(defaults[key: Key<Date?>("when")] == PropertyListValue.date(fromText: "2026-11-21T08:26:05Z"))
        #expect(defaults[key: Key<UInt64>("huge", default: 0)] == .max)
        #expect(defaults[key: Key<Bool>("flag", default: false)] == true)
        #expect(defaults[key: Key<Double>("ratio", default: 1)].sign == .minus)
        #expect(defaults[key: Key<Decimal>("price", default: 0)] == Decimal(string: "19.99"))
        #expect(defaults[key: Key<URL?>("site")] == URL(fileURLWithPath: "/tmp/a b"))
        #expect(defaults[key: Key<Int>("real", default: 7)] == 7, "an integer is spelled in digits only")
    }

    @Test("ISO 8601 dates with an offset, and exact round trips of random dates")
    func timestamps() throws {
        #expect(
            PreciseTimestamp.date(from: "2026-11-21T09:26:05.5+01:00")
                == PreciseTimestamp.date(from: "2026-11-21T08:26:05.5Z")
        )
        #expect(PreciseTimestamp.date(from: "2001-01-01T00:00:00Z") == Date(timeIntervalSinceReferenceDate: 0))
        for text in ["yesterday", "2026-13-01T00:00:00Z", "2026-11-21T08:26:05", "2026-11-21T08:26:05.Z", ""] {
            #expect(PreciseTimestamp.date(from: text) == nil, "\(text)")
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let interval = Double.random(in: -4e10...4e10, using: &generator)
            let date = Date(timeIntervalSinceReferenceDate: interval)
            let text = try #require(PreciseTimestamp.string(from: date))
            #expect(PreciseTimestamp.date(from: text)?.timeIntervalSinceReferenceDate == interval, "\(text)")
        }
    }
}
