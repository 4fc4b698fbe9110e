import Foundation
import Testing

@testable import TypedDefaults

/// A class that is not final, as `NSColor` and `UIColor` are; adopts `NSSecureCoding`.
///
/// Top-level and internal: Foundation's archiver on Linux can only name such classes.
class OpenPaint: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let name: String

    init(name: String) { self.name = name }

    required init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "name") else { return nil }
        self.name = name as String
    }

    func encode(with coder: NSCoder) { coder.encode(name as NSString, forKey: "name") }
}

extension OpenPaint: DefaultsSerializable {}

/// A subclass that inherits `OpenPaint`'s conformance, and so its bridge.
final class GlossPaint: OpenPaint {}

/// A class that is not final and adopts only `NSCoding`, as SwiftyUserDefaults' README stores `UIColor`.
class OpenSketch: NSObject, NSCoding {
    let strokes: Int

    init(strokes: Int) { self.strokes = strokes }

    required init?(coder: NSCoder) { strokes = coder.decodeInteger(forKey: "strokes") }

    func encode(with coder: NSCoder) { coder.encode(strokes, forKey: "strokes") }
}

extension OpenSketch: DefaultsSerializable {}

@Suite("Classes that are not final")
struct OpenClassTests {
    @Test("an open class conforms with one line, and its values and arrays of them come back")
    func openClassRoundTrip() throws {
        let suite = IsolatedSuite()
        let paint = Key<OpenPaint?>("paint")
        let sketches = Key<[OpenSketch]>("sketches", default: [])
        suite.adapter[paint] = OpenPaint(name: "teal")
        suite.adapter[sketches] = [OpenSketch(strokes: 3), OpenSketch(strokes: 5)]
        #expect(suite.adapter[paint]?.name == "teal")
        #expect(suite.adapter[sketches].map(\.strokes) == [3, 5])
        #expect(try suite.fileContents()["paint"] is Data)
        #expect(suite.diagnostics.isEmpty)
    }

    @Test("a subclass that inherits the conformance is refused on write and reads as a mismatch")
    func inheritedConformance() throws {
        let suite = IsolatedSuite()
        let gloss = Key<GlossPaint?>("gloss")
        #expect(throws: DefaultsError.self) { try suite.adapter.set(GlossPaint(name: "shiny"), for: gloss) }
        #expect(!suite.adapter.hasKey(gloss))
        // What a key of the superclass stored does not read as the subclass.
        suite.adapter[Key<OpenPaint?>("gloss")] = OpenPaint(name: "matte")
        #expect(suite.adapter[gloss] == nil)
        #expect(suite.diagnostics.contains { $0.kind == .storedValueMismatch && $0.key == "gloss" })
    }
}
