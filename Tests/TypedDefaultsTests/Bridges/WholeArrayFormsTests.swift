import Foundation
import Testing

@testable import TypedDefaults

@Suite("Arrays stored whole")
struct WholeArrayFormsTests {
    private struct Frog: Codable, Equatable, DefaultsSerializable { var name: String }

    @Test("data that is not such an array reads as the default with a reason, and stays stored")
    func foreignData() throws {
        let frogs = Key<[Frog]>("frogs", default: [])
        let links = Key<[URL]>("links", default: [])
        let counts = Key<[Int]>("counts", default: [7])
        let deep = Data(String(repeating: "[", count: 10_000).utf8)
        let cases: [(String, PropertyListValue)] = [
            ("frogs", .data(Data("not json".utf8))),
            ("frogs", .data(try JSONEncoder().encode(["a": 1]))),  // an object, not an array
            ("frogs", .data(deep)),  // nested past the JSON limit
            ("links", .data(try NSKeyedArchiver.archivedData(withRootObject: ["a"], requiringSecureCoding: false))),
            ("links", .data(Data("bplist00".utf8))),  // truncated
            (
                "links",
                .data(try NSKeyedArchiver.archivedData(withRootObject: NSString("x"), requiringSecureCoding: false))
            ),
            ("counts", .data(Data([1, 2, 3]))),
        ]
        for (name, stored) in cases {
            let suite = IsolatedSuite()
            try suite.adapter.modifyStoredValues { $0[name] = stored }
            #expect(suite.adapter[frogs] == [])
            #expect(suite.adapter[links] == [])
            #expect(suite.adapter[counts] == [7])
            #expect(suite.diagnostics.contains { $0.kind == .storedValueMismatch && $0.key == name })
            #expect(suite.adapter.store.value(forKey: name) == stored)
        }
    }

    @Test("an array of Codable values stored as one JSON document reads, and is written back element by element")
    func codableWhole() throws {
        let suite = IsolatedSuite()
        let frogs = Key<[Frog]>("frogs", default: [])
        let whole = try JSONEncoder().encode([Frog(name: "A")])
        try suite.adapter.modifyStoredValues { $0["frogs"] = .data(whole) }
        #expect(suite.adapter[frogs] == [Frog(name: "A")])
        suite.adapter[frogs].append(Frog(name: "B"))
        #expect(try suite.fileContents()["frogs"] as? [String] == [#"{"name":"A"}"#, #"{"name":"B"}"#])
    }
}
