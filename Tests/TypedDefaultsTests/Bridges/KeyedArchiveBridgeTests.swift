import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// An NSCoding root that holds other objects, for archives whose inner objects are hostile.
final class Envelope: NSObject, NSCoding, DefaultsSerializable {
    let first: NSObject?
    let second: NSObject?

    init(first: NSObject?, second: NSObject? = nil) {
        self.first = first
        self.second = second
    }

    func encode(with coder: NSCoder) {
        coder.encode(first, forKey: "first")
        coder.encode(second, forKey: "second")
    }

    init?(coder: NSCoder) {
        first = coder.decodeObject(forKey: "first") as? NSObject
        second = coder.decodeObject(forKey: "second") as? NSObject
    }
}

/// Something an envelope can hold; the tests rename it in the archive's bytes.
final class Enclosure: NSObject, NSCoding {
    override init() {}
    func encode(with coder: NSCoder) {}
    init?(coder: NSCoder) {}
}

/// A class that does not adopt NSCoding.
final class Uncodable: NSObject {}

/// Something an envelope can hold that archives under the name of a class that does not adopt NSCoding.
final class PosingAsUncodable: NSObject, NSCoding {
    override init() {}
    override var classForKeyedArchiver: AnyClass? { Uncodable.self }
    func encode(with coder: NSCoder) {}
    init?(coder: NSCoder) {}
}

/// Something an envelope can hold that archives as Foundation's `NSError`, without the fields its
/// initializer reads: Foundation's unarchiver on Linux stops the process on such an object.
final class PosingAsError: NSObject, NSCoding {
    override init() {}
    override var classForKeyedArchiver: AnyClass? { NSError.self }
    func encode(with coder: NSCoder) {}
    init?(coder: NSCoder) {}
}

/// Archives as Foundation's `NSString`, without its string.
final class PosingAsString: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    override init() {}
    override var classForKeyedArchiver: AnyClass? { NSString.self }
    func encode(with coder: NSCoder) {}
    init?(coder: NSCoder) {}
}

/// A secure root that reads a string object, for an archive whose string is hostile.
final class Label: NSObject, NSSecureCoding, DefaultsSerializable {
    static var supportsSecureCoding: Bool { true }
    let text: NSObject

    init(text: NSObject) { self.text = text }

    func encode(with coder: NSCoder) { coder.encode(text, forKey: "text") }

    init?(coder: NSCoder) {
        guard let text = coder.decodeObject(of: NSString.self, forKey: "text") else { return nil }
        self.text = text
    }
}

/// Plain `NSCoding` classes, as SwiftyUserDefaults stores them: a keyed archive, read back only as the class
/// it was written as, and no hostile archive ever stops the process.
@Suite("NSCoding keyed archives")
struct KeyedArchiveBridgeTests {
    /// The archive SwiftyUserDefaults writes (`archivedData(withRootObject:)`, which does not require secure
    /// coding), of any object.
    private func archive(_ object: NSObject) throws -> Data {
        try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false)
    }

    /// `archive` with every occurrence of `text` replaced by `replacement`, of the same length (Foundation on
    /// Linux ignores an archiver's `setClassName(_:for:)`, so a class is renamed in the bytes).
    private func replacing(_ text: String, with replacement: String, in archive: Data) -> Data {
        let old = Array(text.utf8)
        let new = Array(replacement.utf8)
        var bytes = Array(archive)
        var index = 0
        while index + old.count <= bytes.count {
            if Array(bytes[index..<index + old.count]) == old {
                bytes.replaceSubrange(index..<index + old.count, with: new)
                index += old.count
            } else {
                index += 1
            }
        }
        return Data(bytes)
    }

    /// A chain of `count` notes, each referring to the next.
    private func chain(_ count: Int) -> Note {
        var note = Note(text: "0")
        for index in 1..<count { note = Note(text: "\(index)", next: note) }
        return note
    }

    @Test("a note is stored as a keyed archive naming its class, and read back in a new process")
    func storedForm() throws {
        let suite = IsolatedSuite()
        suite.adapter[key: Key<Note?>("note")] = Note(text: "hi", next: Note(text: "there"))
        let stored = try #require(try suite.fileContents()["note"] as? Data)
        let graph = try ArchivedObjects(BinaryPropertyListReader(stored))
        #expect(try graph.className(of: graph.fields(of: graph.root)) == NSStringFromClass(Note.self))

        let read = suite.adapter[key: Key<Note?>("note")]
        #expect(read?.text == "hi" && read?.next?.text == "there")
        let run = try Helper.run(["print-migration-types", suite.name], configDirectory: suite.directory.url)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.settings["note"] == "hi,there")
    }

    @Test("the archive SwiftyUserDefaults wrote reads as it is; shared objects are fine")
    func peerBytes() throws {
        let shared = Note(text: "shared")
        let suite = IsolatedSuite(fileContents: [
            "note": try archive(Note(text: "hi", next: Note(text: "there"))),
            "envelope": try archive(Envelope(first: shared, second: shared)),
        ])
        #expect(suite.adapter[key: Key<Note?>("note")]?.next?.text == "there")
        let envelope = try #require(suite.adapter[key: Key<Envelope?>("envelope")])
        #expect((envelope.first as? Note)?.text == "shared" && envelope.first === envelope.second)
        #expect(suite.diagnostics.isEmpty, "\(suite.diagnostics.map(\.message))")
    }

    @Test(
        "hostile archives read as the default with a diagnostic, never a crash",
        arguments: [
            "another class", "truncated", "garbage", "an XML property list", "a cycle", "too deep",
            "an unknown inner class", "an inner class that is not NSCoding", "an inner NSError without its fields",
            "a secure archive's NSString without its string",
        ]
    )
    func hostile(_ label: String) throws {
        let valid = try archive(Note(text: "hi"))
        let stored: Data
        var expected = "keyed archive"
        switch label {
        case "another class": stored = try archive(Envelope(first: nil))
        case "truncated": stored = valid.prefix(valid.count / 2)
        case "garbage": stored = Data("not an archive at all, just text".utf8)
        case "an XML property list":
            stored = try PropertyListSerialization.data(fromPropertyList: ["a": 1], format: .xml, options: 0)
            expected = "not a binary property list"
        case "a cycle":
            let first = Note(text: "a")
            let second = Note(text: "b", next: first)
            first.next = second
            stored = try archive(first)
            expected = "cycle"
        case "too deep":
            stored = try archive(chain(300))
            expected = "more than 256 levels"
        case "an unknown inner class":
            let envelope = try archive(Envelope(first: Enclosure()))
            stored = replacing("Enclosure", with: "Enclosurx", in: envelope)
            #expect(stored != envelope)
            expected = "Envelope"
        case "an inner NSError without its fields":
            stored = try archive(Envelope(first: PosingAsError()))
            expected = "\"NSError\""
        case "a secure archive's NSString without its string":
            stored = try NSKeyedArchiver.archivedData(
                withRootObject: Label(text: PosingAsString()),
                requiringSecureCoding: true
            )
            expected = "NSString has no NS.string"
        default:
            stored = try archive(Envelope(first: PosingAsUncodable()))
            expected = "Envelope"
        }
        let key = label == "another class" || label == "a cycle" || label == "too deep" ? "note" : "value"
        let suite = IsolatedSuite(fileContents: [key: stored])
        if key == "note" {
            #expect(suite.adapter[key: Key<Note?>("note")] == nil, "\(label)")
        } else if label.contains("inner") {
            #expect(suite.adapter[key: Key<Envelope?>("value")] == nil, "\(label)")
        } else if label.contains("secure") {
            #expect(suite.adapter[key: Key<Label?>("value")] == nil, "\(label)")
        } else {
            #expect(suite.adapter[key: Key<Note?>("value")] == nil, "\(label)")
        }
        let diagnostic = try #require(suite.diagnostics.first { $0.kind == .storedValueMismatch }, "\(label)")
        #if !canImport(Darwin)
        #expect(diagnostic.message.contains(expected), "\(label): \(diagnostic.message)")
        #endif
        #expect(try suite.fileContents()[key] as? Data == stored, "left as it is")
    }

    @Test("on Linux, a cyclic or too deep object is refused when written, since it could not be read back")
    func refusedWrites() throws {
        #if canImport(Darwin)
        return
        #else
        let suite = IsolatedSuite()
        let key = Key<Note?>("note")
        try suite.adapter.set(Note(text: "kept"), for: key)
        let first = Note(text: "a")
        first.next = Note(text: "b", next: first)
        #expect(throws: DefaultsError.self) { try suite.adapter.set(first, for: key) }
        first.next = nil  // the cycle would outlive the test
        #expect(throws: DefaultsError.self) { try suite.adapter.set(chain(300), for: key) }
        #expect(suite.adapter[key: key]?.text == "kept")
        try suite.adapter.set(chain(200), for: key)
        #expect(suite.adapter[key: key]?.text == "199")
        #endif
    }

    @Test("an object that encodes a value with no keyed-archive form is refused, not a stopped process")
    func unarchivable() throws {
        let suite = IsolatedSuite()
        #expect(throws: DefaultsError.self) {
            try suite.adapter.set(Envelope(first: ThingHolder(holding: Frog(name: "x"))), for: Key<Envelope?>("e"))
        }
    }
}
