import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// Every value `set` accepts comes back exactly in a new process and in another reader (Python's `plistlib`);
/// every other value is refused with a typed error naming the reason before anything is written.
extension Hostile {
    @Suite("Hostile: values")
    struct ValueLimitsTests {
        private static let depth = PropertyListValue.maximumDepth
        private static let raw = Key<PropertyListValue?>("deep")

        // MARK: Nesting depth

        @Test(
            "a value nested exactly maximumDepth levels deep comes back in a new process and in Python",
            .needsFileStore,
            arguments: ["mixed", "arrays"]
        )
        func depthLimitRoundTrips(kind: String) throws {
            let suite = IsolatedSuite()
            let value = GeneratedValues.nested(depth: Self.depth, arraysOnly: kind == "arrays")
            try suite.adapter.set(value, for: Self.raw)

            let child = try Helper.run(
                ["verify-nested", suite.name, Self.raw.name, "\(Self.depth)", kind],
                configDirectory: suite.directory.url
            )
            #expect(child.status == 0, "\(child.output)\(child.errors)")
            #expect(child.output.contains("verified depth \(Self.depth), 0 problems"))
            try expectPythonReads(suite, [Self.raw.name: value])
        }

        @Test(
            "a value Foundation's reader cannot read back (512 levels with the suite) is refused; the file is unchanged"
        )
        func pastDepthLimit() throws {
            // The failure this guards against: Foundation reads 512 nested levels, the suite's dictionary
            // included, and calls a file with one more damaged, losing every key of the suite.
            let readable = PropertyListXML.data(["deep": GeneratedValues.nested(depth: 511)])
            let unreadable = PropertyListXML.data(["deep": GeneratedValues.nested(depth: 512)])
            #expect((try? parsedSuite(readable)) != nil)
            #expect((try? parsedSuite(unreadable)) == nil, "Foundation's reader now reads deeper files")

            let suite = IsolatedSuite()
            try suite.adapter.set("kept", for: Key<String>("before", default: ""))
            let before = try Data(contentsOf: suite.fileURL)
            let naming = ["\(Self.depth) levels", "PropertyListValue.maximumDepth"]

            for depth in [Self.depth + 1, 512, 10_000] {
                var value = GeneratedValues.nested(depth: depth)
                expectRefused(mentioning: naming) { () throws(DefaultsError) in
                    try suite.adapter.set(value, for: Self.raw)
                }
                expectRefused(mentioning: naming) { () throws(DefaultsError) in
                    try suite.adapter.modifyStoredValues { $0["deep"] = value }
                }
                GeneratedValues.dismantle(&value)
            }
            // Nesting added by bridges counts too: an array of values at the limit, a type whose bridge nests.
            let atLimit = GeneratedValues.nested(depth: Self.depth)
            expectRefused(mentioning: naming) { () throws(DefaultsError) in
                try suite.adapter.set([atLimit], for: Key<[PropertyListValue]>("wrapped", default: []))
            }
            expectRefused(mentioning: naming) { () throws(DefaultsError) in
                try suite.adapter.set(Matryoshka(dolls: Self.depth + 1), for: Key<Matryoshka?>("dolls"))
            }

            #expect(try Data(contentsOf: suite.fileURL) == before, "nothing was written")
            let child = try Helper.run(["probe-key", suite.name, "before"], configDirectory: suite.directory.url)
            #expect(child.settings["value"] == "kept", "\(child.output)\(child.errors)")

            // A type whose bridge nests exactly to the limit is stored and read back.
            try suite.adapter.set(Matryoshka(dolls: Self.depth), for: Key<Matryoshka?>("dolls"))
            let reader = try suite.secondAdapter(keyStore: DefaultsKeys())
            #expect(reader[key: Key<Matryoshka?>("dolls")]?.dolls == Self.depth)
        }

        @Test("a value 100,000 levels deep is refused without overflowing the stack")
        func hundredThousandLevels() throws {
            let suite = IsolatedSuite()
            var value = GeneratedValues.nested(depth: 100_000, arraysOnly: true)
            let naming = ["\(Self.depth) levels"]
            expectRefused(mentioning: naming) { () throws(DefaultsError) in try suite.adapter.set(value, for: Self.raw)
            }
            expectRefused(mentioning: naming) { () throws(DefaultsError) in
                try suite.adapter.modifyStoredValues { $0["deep"] = value }
            }
            // Letting it go in one piece would itself overflow the stack.
            GeneratedValues.dismantle(&value)
            #expect(!suite.adapter.hasKey(Self.raw))
            #expect(!FileManager.default.fileExists(atPath: suite.fileURL.path))
        }

        // MARK: Size

        @Test("a value too large for a sane file is refused, naming the limit; the file is unchanged")
        func sizeLimit() throws {
            let suite = IsolatedSuite()
            try suite.adapter.set("kept", for: Key<String>("before", default: ""))
            let before = try Data(contentsOf: suite.fileURL)
            let naming = ["\(PropertyListValue.maximumEncodedSize) bytes", "PropertyListValue.maximumEncodedSize"]

            // 12 MiB of data is 16 MiB of Base64.
            expectRefused(mentioning: naming) { () throws(DefaultsError) in
                try suite.adapter.set(Data(count: 12 << 20), for: Key<Data?>("blob"))
            }
            // Half a million small elements, each with its tags and indentation.
            expectRefused(mentioning: naming) { () throws(DefaultsError) in
                try suite.adapter.set(Array(repeating: 7, count: 500_000), for: Key<[Int]>("many", default: []))
            }
            // 4 Mi ampersands are 20 MiB once escaped.
            expectRefused(mentioning: naming) { () throws(DefaultsError) in
                try suite.adapter.set(String(repeating: "&", count: 4 << 20), for: Key<String>("text", default: ""))
            }
            #expect(try Data(contentsOf: suite.fileURL) == before, "nothing was written")
        }

        // MARK: Strings

        @Test("Foundation's reader drops a leading U+FEFF, written as the character or as a reference")
        func leadingByteOrderMarkIsDropped() throws {
            // The failure: such a string was written, and came back without its first character.
            let written = PropertyListXML.data(["k": .string("\u{FEFF}abc"), "\u{FEFF}key": .integer(1)])
            let read = try parsedSuite(written)
            #expect(read["k"] == .string("abc"), "Foundation's reader now keeps a leading U+FEFF")
            #expect(read.keys.contains("key"))

            let reference = Data(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0"><dict><key>k</key><string>&#xFEFF;abc</string></dict></plist>
                """
                .utf8
            )
            #expect(try parsedSuite(reference)["k"] == .string("abc"))
        }

        @Test(
            "strings and keys starting with U+FEFF are refused; U+FEFF elsewhere and every line end come back exactly",
            .needsFileStore
        )
        func lineEndsAndByteOrderMarks() throws {
            let suite = IsolatedSuite()
            let stored = try write(GeneratedValues.fixedEntries, to: suite)

            let child = try Helper.run(["verify-entries", suite.name, "fixed"], configDirectory: suite.directory.url)
            #expect(child.status == 0, "\(child.output)\(child.errors)")
            try expectPythonReads(suite, stored)

            // Carriage returns are written as references, which XML readers keep, not as bytes they normalize.
            let file = try Data(contentsOf: suite.fileURL)
            #expect(!file.contains(UInt8(ascii: "\r")))
            #expect(String(decoding: file, as: UTF8.self).contains("<string>a&#xD;\nb</string>"))
        }

        @Test("a refusal quotes only the start of a long string")
        func shortReasons() throws {
            let suite = IsolatedSuite()
            let long = "\u{FEFF}" + String(repeating: "x", count: 1_000_000)
            expectRefused(mentioning: ["U+FEFF", "xxxx…"]) { () throws(DefaultsError) in
                try suite.adapter.set(long, for: Key<String>("long", default: ""))
            }
            expectRefused(mentioning: ["U+1", "the dictionary key"]) { () throws(DefaultsError) in
                try suite.adapter.set(["x" + long + "\u{1}": 1], for: Key<[String: Int]>("keys", default: [:]))
            }
        }

        // MARK: Dates

        @Test("a <date> outside the years 1 to 9999, or not finite, is refused; the years' bounds come back exactly")
        func dateRange() throws {
            let suite = IsolatedSuite()
            // Before, NaN and infinite dates were written as 2001-01-01, and Python's plistlib rejected the whole
            // file for a five-digit or negative year.
            for seconds in [Double.nan, .infinity, -.infinity, 252_423_993_600, -63_113_904_001, 1e15] {
                expectRefused(mentioning: ["0001-01-01", "9999-12-31"]) { () throws(DefaultsError) in
                    try suite.adapter.set(.date(Date(timeIntervalSinceReferenceDate: seconds)), for: Self.raw)
                }
            }
            #expect(!suite.adapter.hasKey(Self.raw))

            let bounds = PropertyListValue.array([
                .date(Date(timeIntervalSinceReferenceDate: -63_113_904_000)),
                .date(Date(timeIntervalSinceReferenceDate: 252_423_993_599)),
            ])
            try suite.adapter.set(bounds, for: Self.raw)
            let reader = try suite.secondAdapter(keyStore: DefaultsKeys())
            #expect(reader[key: Self.raw] == bounds)
            try expectPythonReads(suite, [Self.raw.name: bounds])
        }

        // MARK: Random trees

        @Test("random trees of every kind of value come back exactly in a new process and in Python", .needsFileStore)
        func randomRoundTrip() throws {
            let seeds: [UInt64] = [1, 2, 3, 5, 8, 13]
            let count = 30
            let entries = seeds.flatMap { GeneratedValues.entries(seed: $0, count: count) }
            #expect(entries.contains { $0.refusal != nil } && entries.contains { $0.refusal == nil })

            let suite = IsolatedSuite(writePolicy: .coalesced)
            let stored = try write(entries, to: suite)

            // The size limit's estimate covers what the writer writes, without counting wildly more.
            for (key, value) in stored {
                let estimate = try value.checkStorable()
                let actual =
                    PropertyListXML.data(["k": value]).count - PropertyListXML.data(["k": .bool(true)]).count + 7
                #expect(
                    estimate >= actual && estimate <= 3 * actual,
                    "\(key.debugDescription): \(estimate) for \(actual)"
                )
            }

            let child = try Helper.run(
                ["verify-entries", suite.name, seeds.map { "\($0)" }.joined(separator: ","), "\(count)"],
                configDirectory: suite.directory.url
            )
            #expect(child.status == 0, "\(child.output)\(child.errors)")
            #expect(child.output.contains("verified \(entries.count) entries, 0 problems"))
            try expectPythonReads(suite, stored)
        }

        // MARK: Helpers

        /// Writes each entry with `set`; a refusal must be typed, for that key, and name the entry's reason.
        private func write(
            _ entries: [GeneratedEntry],
            to suite: IsolatedSuite,
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> [String: PropertyListValue] {
            var stored: [String: PropertyListValue] = [:]
            for entry in entries {
                do {
                    try suite.adapter.set(entry.value, for: Key<PropertyListValue?>(entry.key))
                    stored[entry.key] = entry.value
                    if let refusal = entry.refusal {
                        Issue.record("\(entry.key.debugDescription) was stored, not refused for \(refusal)")
                    }
                } catch {
                    guard case .valueNotStorable(let key, _, let reason) = error, let refusal = entry.refusal else {
                        Issue.record("\(entry.key.debugDescription): \(error)", sourceLocation: sourceLocation)
                        continue
                    }
                    #expect(key == entry.key, sourceLocation: sourceLocation)
                    #expect(reason.contains(refusal), "\(reason)", sourceLocation: sourceLocation)
                }
            }
            try suite.adapter.flush()
            return stored
        }

        private func expectRefused(
            mentioning phrases: [String],
            sourceLocation: SourceLocation = #_sourceLocation,
            _ body: () throws(DefaultsError) -> Void
        ) {
            do {
                try body()
                Issue.record("the value was stored", sourceLocation: sourceLocation)
            } catch {
                guard case .valueNotStorable(_, _, let reason) = error else {
                    Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
                    return
                }
                for phrase in phrases {
                    #expect(reason.contains(phrase), "\(reason)", sourceLocation: sourceLocation)
                }
                #expect(
                    reason.count < 300,
                    "a short reason, not the value: \(reason.count)",
                    sourceLocation: sourceLocation
                )
            }
        }

        /// Python's `plistlib` reads the suite's file as exactly `stored`; skipped (with a note) without python3.
        private func expectPythonReads(
            _ suite: IsolatedSuite,
            _ stored: [String: PropertyListValue],
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws {
            guard let python = Self.python else {
                print("Hostile: values: python3 is not on PATH; skipped reading the file with plistlib")
                return
            }
            let expected = suite.directory.url.appendingPathComponent("expected.json")
            try JSONSerialization.data(withJSONObject: GeneratedValues.jsonForm(.dictionary(stored)))
                .write(to: expected)
            let result = try Helper.run(
                ["-c", GeneratedValues.pythonComparison, suite.fileURL.path, expected.path],
                configDirectory: suite.directory.url,
                program: python
            )
            #expect(result.status == 0, "plistlib: \(result.output)\(result.errors)", sourceLocation: sourceLocation)
            #expect(result.output.hasPrefix("same"), sourceLocation: sourceLocation)
        }

        private static let python: URL? = (ProcessInfo.processInfo.environment["PATH"] ?? "")
            .split(separator: ":")
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent("python3") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}

/// A type whose own bridge nests: that many dictionaries, one inside the other.
struct Matryoshka: DefaultsSerializable {
    var dolls: Int

    static var bridge: MatryoshkaBridge { MatryoshkaBridge() }
}

struct MatryoshkaBridge: DefaultsBridge {
    func serialize(_ value: Matryoshka) -> PropertyListValue? {
        var stored = PropertyListValue.dictionary([:])
        for _ in 1..<max(value.dolls, 1) { stored = .dictionary(["doll": stored]) }
        return stored
    }

    func deserialize(_ stored: PropertyListValue) -> Matryoshka? {
        var dolls = 0
        var current: PropertyListValue? = stored
        while case .dictionary(let entries)? = current {
            dolls += 1
            current = entries["doll"]
        }
        return dolls > 0 ? Matryoshka(dolls: dolls) : nil
    }
}
