import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// No `Codable` or `NSSecureCoding` value crashes the process: values nested deeper than the encoder's stack
/// can take, and classes Foundation's archiver on Linux cannot name, get a typed error with a short message.
///
/// Every case that used to crash runs in a child process (the package's test helper), so a regression fails
/// the test instead of taking the test runner down.
extension Hostile {
    @Suite("Hostile: bridges")
    struct BridgeLimitsTests {
        /// The longest message these errors may have: one line a user reads.
        private static let messageLimit = 400

        private func run(_ arguments: [String]) throws -> (result: Helper.Result, directory: TemporaryConfigDirectory) {
            let directory = TemporaryConfigDirectory()
            let result = try Helper.run(arguments, configDirectory: directory.url)
            return (result, directory)
        }

        // MARK: - Codable nesting

        @Test("the nesting limit is 256 levels")
        func limit() {
            #expect(CodableBridge<Nest>.maximumNestingDepth == 256)
        }

        @Test(
            "a Codable value nested too deeply is refused with a short typed error, in a process that carries on",
            arguments: [
                ("nest", 20_000),  // an indirect enum: overflowed the stack inside JSONEncoder
                ("chain", 20_000),  // a linked list of classes
                ("brackets", 100_000),  // nested containers opened in a loop, without recursion in the type
                ("wrappers", 20_000),  // single-value containers: no JSON depth at all, but JSONEncoder recursed
                ("swallowing", 20_000),  // an encode(to:) that swallows the error with try?
                ("nest", 1_500),  // deep enough that a message embedding the whole value would be huge
                ("chain", 2_000),
            ]
        )
        func deepValueRefused(kind: String, levels: Int) throws {
            let (run, directory) = try run(["deep-codable", "s", kind, "\(levels)"])
            #expect(run.status == 0, "the helper crashed: \(run.errors.suffix(2_000))")
            let result = try #require(run.settings["result"], "no result in \(run.output.prefix(1_000))")
            #expect(result.hasPrefix("the Optional<"), "a typed DefaultsError: \(result)")
            #expect(result.contains("cannot be stored") && result.contains("more than 256 levels deep"))
            #expect(result.count < Self.messageLimit, "\(result.count) characters")
            #expect(!result.contains(".node(") && !result.contains("TypedDefaultsTestSupport.Chain"), "no value in it")

            // The subscript reports the same short message, and nothing was written.
            let diagnostic = try #require(run.settings["diagnostic"])
            #expect(diagnostic.contains("more than 256 levels deep") && diagnostic.count < Self.messageLimit)
            #expect(run.output.contains("assigned"))
            #expect((try? directory.contents(ofSuite: "s"))?["deep"] == nil)
        }

        @Test("a value exactly at the limit is stored and reads back; one level more is refused and changes nothing")
        func atTheLimit() throws {
            let suite = IsolatedSuite()
            let chainKey = Key<Chain?>("chain")
            try suite.adapter.set(Chain.links(256), for: chainKey)
            try suite.adapter.set(Nest.nodes(127), for: Key<Nest?>("nest"))  // 2 * 127 + 2 = 256 levels of JSON
            try suite.adapter.set(Brackets(depth: 256), for: Key<Brackets?>("brackets"))

            // Decoded from the file's JSON, not from a value kept in memory.
            let file = try suite.fileContents()
            let chainJSON = try #require(file["chain"] as? String)
            #expect(try CodableBridge<Chain>().deserialize(.string(chainJSON))?.linkCount == 256)
            let nestJSON = try #require(file["nest"] as? String)
            #expect(try CodableBridge<Nest>().deserialize(.string(nestJSON)) == Nest.nodes(127))
            let bracketsJSON = try #require(file["brackets"] as? String)
            #expect(bracketsJSON == String(repeating: "[", count: 256) + String(repeating: "]", count: 256))
            #expect(try CodableBridge<Brackets>().deserialize(.string(bracketsJSON)) == Brackets(depth: 256))

            let error = try #require(throws: DefaultsError.self) {
                try suite.adapter.set(Chain.links(257), for: chainKey)
            }
            guard case .valueNotStorable(let key, _, let reason) = error else {
                Issue.record("expected valueNotStorable, got \(error)")
                return
            }
            #expect(key == "chain" && reason.contains("256"))
            #expect(suite.adapter[key: chainKey]?.linkCount == 256, "the old value stays")
            #expect(throws: DefaultsError.self) { try suite.adapter.set(Nest.nodes(128), for: Key<Nest?>("nest")) }
            #expect(throws: DefaultsError.self) {
                try suite.adapter.set(Brackets(depth: 257), for: Key<Brackets?>("brackets"))
            }
        }

        @Test("an Optional inside an array counts a level, so the count never falls below the JSON depth")
        func singleValueLevels() throws {
            // Each level is three: the struct's object, the array, and the Optional in it (a single value the encoder
            // recurses into). The innermost is two: `{"inner":[]}`.
            struct Level: Codable, DefaultsSerializable { var inner: [Level?] }
            func levels(_ count: Int) -> Level {
                var value = Level(inner: [])
                for _ in 0..<count { value = Level(inner: [value]) }
                return value
            }
            let suite = IsolatedSuite()
            try suite.adapter.set(levels(84), for: Key<Level?>("levels"))  // 3 * 84 + 2 = 254
            // 3 * 85 + 2 = 257
            #expect(throws: DefaultsError.self) { try suite.adapter.set(levels(85), for: Key<Level?>("levels")) }
        }

        @Test("stored JSON nested 100,000 deep reads as the default with a diagnostic, in a process that carries on")
        func deepStoredJSON() throws {
            let (run, _) = try run(["deep-json", "s", "100000"])
            #expect(run.status == 0, "the helper crashed: \(run.errors.suffix(2_000))")
            #expect(run.settings["brackets"] == "nil")
            #expect(run.settings["nest"] == "nil")
            let diagnostics = run.output.split(separator: "\n").filter { $0.hasPrefix("diagnostic=") }
            #expect(diagnostics.count == 2)
            #expect(diagnostics.allSatisfy { $0.contains("nests more than 256 levels deep") })
            #expect(diagnostics.allSatisfy { $0.count < Self.messageLimit })
        }

        @Test("stored JSON at the limit decodes; one level deeper reads as a mismatch")
        func storedJSONAtTheLimit() throws {
            struct Text: Codable, Equatable, DefaultsSerializable { var text: String }
            let inside = String(repeating: "[", count: 255) + String(repeating: "]", count: 255)
            let text = "a \"quoted\" " + String(repeating: "[{", count: 1_000)
            let suite = IsolatedSuite(fileContents: [
                "limit": "[" + inside + "]",
                "over": "[[" + inside + "]]",
                "text": #"{"text":"a \"quoted\" "# + String(repeating: "[{", count: 1_000) + #""}"#,
            ])
            #expect(suite.adapter[key: Key<Brackets?>("limit")] == Brackets(depth: 256))
            #expect(suite.adapter[key: Key<Brackets?>("over")] == nil)
            #expect(suite.diagnostics.contains { $0.key == "over" && $0.message.contains("more than 256 levels deep") })
            // Brackets inside a string, after escaped quotes, are text, not nesting.
            #expect(suite.adapter[key: Key<Text?>("text")] == Text(text: text))
        }

        @Test("a type mismatch deep in stored JSON names a short path")
        func shortDecodingPath() throws {
            var json = "1"
            for _ in 0..<200 { json = #"{"next":"# + json + "}" }
            let suite = IsolatedSuite(fileContents: ["chain": json])
            #expect(suite.adapter[key: Key<Chain?>("chain")] == nil)
            let diagnostic = try #require(suite.diagnostics.first { $0.key == "chain" })
            #expect(diagnostic.message.contains("next.next.next.next.…"))
            #expect(diagnostic.message.count < Self.messageLimit, "\(diagnostic.message.count) characters")
        }

        // MARK: - NSSecureCoding on Linux

        #if !canImport(Darwin)
        @Test(
            "a secure-coding value Foundation on Linux cannot archive is refused with a typed error",
            arguments: HostileArchives.writeCases
        )
        func unarchivableValue(_ name: String) throws {
            let (run, directory) = try run(["hostile-archive", "s", name])
            #expect(run.status == 0, "the helper crashed: \(run.errors.suffix(2_000))")
            let result = try #require(run.settings["result"], "no result in \(run.output.prefix(1_000))")
            #expect(result.contains("cannot be stored"), "\(result)")
            let reason =
                name.hasPrefix("holds-insecure") || name == "holds-struct" ? "NSSecureCoding" : "top-level class"
            #expect(result.contains(reason), "\(result)")
            #expect(result.contains("an object it encodes") == name.hasPrefix("holds-"))
            #expect(result.count < Self.messageLimit, "\(result.count) characters")
            #expect(run.output.contains("assigned"))
            #expect(run.settings["hasKey"] == "false")
            #expect((try? directory.contents(ofSuite: "s"))?["thing"] == nil)
        }

        @Test("the subscript reports a private class, and a private class inside another, instead of crashing")
        func unarchivableAssigned() throws {
            for name in ["private", "holds-private"] {
                let (run, _) = try run(["hostile-archive", "s", name])
                #expect(run.status == 0, "the helper crashed: \(run.errors.suffix(2_000))")
                let diagnostic = try #require(run.settings["diagnostic"], "\(name): \(run.output)")
                #expect(diagnostic.contains("PrivateThing is not a top-level class"))
            }
        }

        @Test(
            "an archive read as a class it does not hold, or as a class Linux cannot name, reads as the default",
            arguments: [
                ("plain", "private", "cannot be unarchived on Linux"),
                ("plain", "nested", "cannot be unarchived on Linux"),
                ("plain", "generic", "cannot be unarchived on Linux"),
                ("plain", "holder", "holds TypedDefaultsTestSupport.PlainThing, not"),
                ("holder", "plain", "holds TypedDefaultsTestSupport.ThingHolder, not"),
            ]
        )
        func unreadableArchive(stored: String, readAs: String, reason: String) throws {
            let (run, _) = try run(["read-archive", "s", stored, readAs])
            #expect(run.status == 0, "the helper crashed: \(run.errors.suffix(2_000))")
            #expect(run.settings["read"] == "nil")
            let diagnostic = try #require(run.settings["diagnostic"], "\(run.output)")
            #expect(diagnostic.contains(reason), "\(diagnostic)")
            #expect(diagnostic.count < Self.messageLimit)
        }

        @Test("archives of the right class still read, in a new process too")
        func readableArchive() throws {
            for (stored, expected) in [("plain", "PlainThing(7)"), ("holder", "ThingHolder(0)")] {
                let (run, _) = try run(["read-archive", "s", stored, stored])
                #expect(run.settings["read"] == expected, "\(run.output)\(run.errors.suffix(1_000))")
                #expect(run.settings["diagnostic"] == nil)
            }
        }

        @Test("a secure-coding value holding other objects round-trips, and Foundation reads its archive")
        func holderRoundTrip() throws {
            let suite = IsolatedSuite()
            let key = Key<ThingHolder?>("holder")
            try suite.adapter.set(ThingHolder(holding: PlainThing(number: 3)), for: key)
            let read = try #require(suite.adapter[key: key])
            #expect((read.held as? PlainThing)?.number == 3)

            let archive = try #require(try suite.fileContents()["holder"] as? Data)
            let unarchived = try NSKeyedUnarchiver.unarchivedObject(ofClass: ThingHolder.self, from: archive)
            #expect((unarchived?.held as? PlainThing)?.number == 3)
        }
        #endif
    }
}
