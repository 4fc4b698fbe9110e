import Foundation
import Testing

@testable import TypedDefaults

/// XML suite files that a dictionary of values cannot stand for, kept entry by entry: two spellings of one key
/// that Swift's `String` takes to be equal, and a keyed archiver's reference.
@Suite("XML entry lists")
struct PropertyListXMLEntryListTests {
    static func document(_ body: String) -> Data {
        Data((PropertyListXML.header + "<dict>\n" + body + "</dict>\n</plist>\n").utf8)
    }

    static let spellings = document(
        """
        \t<key>caf\u{E9}</key>
        \t<string>composed</string>
        \t<key>cafe\u{301}</key>
        \t<string>decomposed</string>
        \t<key>ref</key>
        \t<dict>
        \t\t<key>CF$UID</key>
        \t\t<integer>3</integer>
        \t</dict>

        """
    )

    @Test("each spelling keeps its own value through a write of either, and the reference stays a reference")
    func writesKeepEachSpelling() throws {
        let list = try #require(PropertyListXML.EntryList(reading: Self.spellings))
        #expect(list.count == 3)
        // The later spelling is found by a name of its own.
        #expect(
            list.values == [
                "caf\u{E9}": .string("composed"), KeySpelling.name(of: "cafe\u{301}"): .string("decomposed"),
            ]
        )
        #expect(list.bytes == Array(Self.spellings), "written back exactly as read")
        let next = list.updating([("cafe\u{301}", .string("changed")), ("new", .integer(1))])
        let object = try PropertyListSerialization.propertyList(from: Data(next.bytes), format: nil)
        let entries = try #require(object as? [AnyHashable: Any])
        // Foundation's dictionary merges the spellings, so the text is checked for each.
        let text = String(decoding: next.bytes, as: UTF8.self)
        #expect(text.contains("<key>caf\u{E9}</key>\n\t<string>composed</string>"))
        #expect(text.contains("<key>cafe\u{301}</key>\n\t<string>changed</string>"))
        #expect(entries["ref"].map { "\(type(of: $0))".contains("UID") } == true)
        #expect(entries["new"] as? Int == 1)
        // Removing one spelling leaves the other, which reads then find.
        #expect(next.updating([("caf\u{E9}", nil)]).values == ["cafe\u{301}": .string("changed"), "new": .integer(1)])
    }

    @Test("what a dictionary stands for, a key written twice with the same bytes and a lone CF$UID are left alone")
    func otherFilesAreNotLists() {
        #expect(PropertyListXML.EntryList(reading: PropertyListXML.data(["a": .integer(1)])) == nil)
        #expect(
            PropertyListXML.EntryList(
                reading: Self.document("\t<key>a</key>\n\t<true/>\n\t<key>a</key>\n\t<false/>\n")
            ) == nil
        )
        #expect(
            PropertyListXML.EntryList(reading: Self.document("\t<key>CF$UID</key>\n\t<integer>1</integer>\n")) == nil
        )
        #expect(PropertyListXMLReader.entryList(from: Data("<plist><array/></plist>".utf8)) == nil)
    }
}
