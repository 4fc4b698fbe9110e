import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// Codable and NSSecureCoding: `extension …: DefaultsSerializable {}` compiles, and Codable wins.
final class CodableSecureThing: NSObject, NSSecureCoding, Codable, DefaultsSerializable {
    let name: String
    init(name: String) { self.name = name }
    static var supportsSecureCoding: Bool { true }
    func encode(with coder: NSCoder) { coder.encode(name as NSString, forKey: "name") }
    init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "name") else { return nil }
        self.name = name as String
    }
}

/// The same, choosing the keyed archive with one line.
///
/// A class names itself: Swift allows no `Self` inside a
/// class property's type (`SecureCodingBridge<Self>` is "covariant 'Self'"), unlike a struct's or an enum's.
final class ArchivedSecureThing: NSObject, NSSecureCoding, Codable, DefaultsSerializable {
    static var bridge: SecureCodingBridge<ArchivedSecureThing> { .init() }

    let name: String
    init(name: String) { self.name = name }
    static var supportsSecureCoding: Bool { true }
    func encode(with coder: NSCoder) { coder.encode(name as NSString, forKey: "name") }
    init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "name") else { return nil }
        self.name = name as String
    }
}

/// Codable and plain NSCoding: Codable wins here too.
final class CodableNote: NSObject, NSCoding, Codable, DefaultsSerializable {
    let text: String
    init(text: String) { self.text = text }
    func encode(with coder: NSCoder) { coder.encode(text, forKey: "text") }
    init?(coder: NSCoder) {
        guard let text = coder.decodeObject(forKey: "text") as? String else { return nil }
        self.text = text
    }
}

/// RawRepresentable and Codable, choosing JSON with one line.
enum JSONLevel: Int, Codable, DefaultsSerializable {
    static var bridge: CodableBridge<Self> { .init() }
    case low = 1
    case high = 2
}

/// RawRepresentable and Codable with a Codable form of its own, which sindresorhus/Defaults stores.
enum Mode: String, Codable, DefaultsSerializable {
    case quiet, loud

    private enum CodingKeys: String, CodingKey { case mode }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let raw = try container.decode(String.self, forKey: .mode)
        guard let mode = Mode(rawValue: raw) else {
            throw DecodingError.dataCorruptedError(forKey: .mode, in: container, debugDescription: "no such mode")
        }
        self = mode
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(rawValue, forKey: .mode)
    }
}

/// A type that is two of the kinds TypedDefaults stores gets one bridge by a fixed rule, and can choose the
/// other with one line.
@Suite("Bridge choice")
struct BridgeChoiceTests {
    @Test("Codable and NSSecureCoding: Codable wins, as in sindresorhus/Defaults")
    func codableSecureCoding() throws {
        #expect(type(of: CodableSecureThing.bridge) == CodableBridge<CodableSecureThing>.self)
        let suite = IsolatedSuite()
        suite.adapter[key: Key<CodableSecureThing?>("thing")] = CodableSecureThing(name: "Ann")
        #expect(try suite.fileContents()["thing"] as? String == #"{"name":"Ann"}"#)
        #expect(suite.adapter[key: Key<CodableSecureThing?>("thing")]?.name == "Ann")
    }

    @Test("Codable and NSSecureCoding: one line in the conformance chooses the keyed archive")
    func chooseArchive() throws {
        #expect(type(of: ArchivedSecureThing.bridge) == SecureCodingBridge<ArchivedSecureThing>.self)
        let suite = IsolatedSuite()
        suite.adapter[key: Key<ArchivedSecureThing?>("thing")] = ArchivedSecureThing(name: "Bo")
        let archive = try #require(try suite.fileContents()["thing"] as? Data)
        #expect(archive.starts(with: Array("bplist00".utf8)))
        #expect(suite.adapter[key: Key<ArchivedSecureThing?>("thing")]?.name == "Bo")
    }

    @Test("Codable and plain NSCoding: Codable wins; NSSecureCoding alone and NSCoding alone archive")
    func codableCoding() throws {
        #expect(type(of: CodableNote.bridge) == CodableBridge<CodableNote>.self)
        #expect(type(of: Bookmark.bridge) == SecureCodingBridge<Bookmark>.self)
        #expect(type(of: Note.bridge) == KeyedArchiveBridge<Note>.self)
        let suite = IsolatedSuite()
        suite.adapter[key: Key<CodableNote?>("note")] = CodableNote(text: "hi")
        #expect(try suite.fileContents()["note"] as? String == #"{"text":"hi"}"#)
    }

    @Test("RawRepresentable and Codable: the raw value wins; one line chooses JSON")
    func rawValueOrJSON() throws {
        #expect(type(of: Level.bridge) == RawRepresentableBridge<Level>.self)
        #expect(type(of: JSONLevel.bridge) == CodableBridge<JSONLevel>.self)
        let suite = IsolatedSuite()
        suite.adapter[key: Key<Level>("level", default: .low)] = .high
        suite.adapter[key: Key<JSONLevel>("json", default: .low)] = .high
        suite.adapter[key: Key<Mode>("mode", default: .quiet)] = .loud
        let file = try suite.fileContents()
        #expect(file["level"] as? Int == 2)
        #expect(file["json"] as? String == "2", "JSON text of the value, as sindresorhus/Defaults writes it")
        #expect(file["mode"] as? String == "loud")
        #expect(suite.adapter[key: Key<JSONLevel>("json", default: .low)] == .high)
    }

    @Test("what sindresorhus/Defaults stored for Codable enums reads as it is under the raw-value rule")
    func peerEnumBytes() {
        // Its exact bytes: JSON text as a <string>, of the raw value or of the type's own Codable form.
        let suite = IsolatedSuite(fileContents: [
            "theme": #""dark""#,
            "level": "2",
            "mode": #"{"mode":"loud"}"#,
            "modeData": Data(#"{"mode":"loud"}"#.utf8),
        ])
        #expect(suite.adapter[key: Key<Theme>("theme", default: .light)] == .dark)
        #expect(suite.adapter[key: Key<Level>("level", default: .low)] == .high)
        #expect(suite.adapter[key: Key<Mode>("mode", default: .quiet)] == .loud)
        #expect(suite.adapter[key: Key<Mode>("modeData", default: .quiet)] == .loud)
        #expect(suite.diagnostics.isEmpty, "\(suite.diagnostics.map(\.message))")
    }

    @Test("the JSON fallback never changes what a raw value reads as, and a stray value is still a mismatch")
    func fallbackIsUnambiguous() throws {
        let suite = IsolatedSuite(fileContents: ["mode": "quiet", "bad": #"{"mode":"shouting"}"#, "level": "7"])
        #expect(suite.adapter[key: Key<Mode>("mode", default: .loud)] == .quiet)
        #expect(suite.adapter[key: Key<Mode>("bad", default: .quiet)] == .quiet)
        #expect(suite.adapter[key: Key<Level>("level", default: .low)] == .low)
        let reported = Set(suite.diagnostics.filter { $0.kind == .storedValueMismatch }.compactMap(\.key))
        #expect(reported == ["bad", "level"])
    }
}
