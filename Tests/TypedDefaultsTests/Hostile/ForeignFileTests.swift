import Foundation
import Testing

#if !TYPED_DEFAULTS_FOUNDATION_STORAGE  // needs the Linux file store; see FileStoreOnly.swift

@testable import TypedDefaults

/// Issue 21's files other tools wrote: binary property lists from Python's `plistlib` and by hand, keys that
/// Swift takes to be equal though their bytes differ, objects `PropertyListValue` does not model, NaN payloads.
///
/// What must hold: a write of one key leaves every other entry of the file as its other readers read it before,
/// in a form they still read; nothing is declared damaged that Foundation reads as a dictionary; a number reads
/// back with the bits it was written with, and no observer hears a change that did not happen.
extension Hostile {
    @Suite("Hostile: files other tools wrote")
    struct ForeignFileTests {
        /// What Python's `plistlib` reads in the file at `path`: its format, then one line per entry (keys in
        /// `ascii()`, so that two spellings of one key differ), leaving out `skipping`.
        static func pythonReading(_ path: URL, skipping: [String] = []) throws -> String {
            let result = try Python.run(
                """
                import plistlib, sys
                path, skip = sys.argv[1], sys.argv[2:]
                with open(path, 'rb') as f:
                    data = f.read()
                print('binary' if data.startswith(b'bplist00') else 'xml')
                values = plistlib.loads(data)
                for key in sorted(values, key=lambda k: (type(k).__name__, ascii(k))):
                    if key not in skip:
                        print(ascii(key), ascii(values[key]))
                """,
                [path.path] + skipping
            )
            #expect(result.status == 0, "plistlib cannot read the file: \(result.errors)")
            return result.output
        }

        /// Writes `values` (a Python expression) to the suite's file with `plistlib`, in `format` (`FMT_XML` or
        /// `FMT_BINARY`), before the suite first reads it.
        static func pythonWrites(_ values: String, format: String, to path: URL) throws {
            let result = try Python.run(
                """
                import plistlib, sys, datetime
                values = \(values)
                with open(sys.argv[1], 'wb') as f:
                    plistlib.dump(values, f, fmt=plistlib.\(format))
                """,
                [path.path]
            )
            try #require(result.status == 0, "\(result.errors)")
        }

        @Test("a binary file from plistlib keeps date fractions and control characters through an unrelated write")
        func binaryFileFromPython() throws {
            let suite = IsolatedSuite()
            try Self.pythonWrites(
                """
                {
                    'fraction': datetime.datetime(2024, 5, 6, 7, 8, 9, 750000),
                    'ansi': '\\x1b[31mred\\x1b[0m', 'control': 'a\\x01b', 'nul': 'a\\x00b',
                    'nested': {'when': datetime.datetime(2001, 1, 1, 0, 0, 0, 250000), 'bell': ['\\x07']},
                    'number': 3, 'real': 2.5, 'big': 18446744073709551615, 'blob': b'\\x00\\xff',
                }
                """,
                format: "FMT_BINARY",
                to: suite.fileURL
            )
            let before = try Self.pythonReading(suite.fileURL)
            #expect(before.hasPrefix("binary\n"))
            #expect(before.contains("750000"))
            let adapter = suite.adapter
            #expect(adapter[key: Key<String?>("ansi")] == "\u{1B}[31mred\u{1B}[0m")
            try adapter.set(1, for: Key<Int?>("new"))
            #expect(try Self.pythonReading(suite.fileURL, skipping: ["new"]) == before)
            #expect(try Self.pythonReading(suite.fileURL).contains("'new' 1\n"))
            // Another process's write, which reads the file this process wrote, keeps them too.
            try LargeSuiteAttackTests.runInChild([.init(key: "child", value: "2")], suite: suite)
            #expect(try Self.pythonReading(suite.fileURL, skipping: ["new", "child"]) == before)
            #expect(suite.diagnostics.isEmpty, "\(suite.diagnostics)")
        }

        @Test("dates of 1e300 seconds and NaN in a binary file come back with their bits after an unrelated write")
        func outOfRangeDates() throws {
            let suite = IsolatedSuite()
            let far = Date(timeIntervalSinceReferenceDate: 1e300)
            let notANumber = Date(timeIntervalSinceReferenceDate: .nan)
            let fraction = Date(timeIntervalSinceReferenceDate: 0.1)
            try BinaryPropertyList.dictionary([
                ("far", .date(far)), ("nan", .date(notANumber)), ("fraction", .date(fraction)),
                ("ansi", .string("\u{1B}[0m")),
            ])
            .encoded
            .write(to: suite.fileURL)
            try suite.adapter.set(1, for: Key<Int?>("new"))
            let bytes = try Data(contentsOf: suite.fileURL)
            #expect(bytes.starts(with: Array("bplist00".utf8)))
            let values = try #require(foundationReading(bytes))
            let expected: [String: PropertyListValue] = [
                "far": .date(far), "nan": .date(notANumber), "fraction": .date(fraction),
                "ansi": .string("\u{1B}[0m"), "new": .integer(1),
            ]
            // Compared key by key: Foundation cannot describe a date of 1e300 seconds without crashing.
            let wrong = expected.keys.filter { !values[$0].isIdentical(to: expected[$0]) }.sorted()
            #expect(wrong.isEmpty && values.count == expected.count, "\(wrong)")
        }

        @Test(
            "two spellings of one key that plistlib wrote are two keys: each reads, writes and is removed on its own",
            arguments: ["FMT_XML", "FMT_BINARY"]
        )
        func twoSpellingsOfOneKey(format: String) throws {
            let suite = IsolatedSuite()
            try Self.pythonWrites(
                "{'caf\\u00e9': 'composed', 'cafe\\u0301': 'decomposed', 'other': 'x'}",
                format: format,
                to: suite.fileURL
            )
            let before = try Self.pythonReading(suite.fileURL)
            #expect(before.contains("'caf\\xe9' 'composed'") && before.contains("'cafe\\u0301' 'decomposed'"))
            let adapter = suite.adapter
            let composed = Key<String?>("caf\u{E9}")
            let decomposed = Key<String?>("cafe\u{301}")
            #expect(adapter[key: composed] == "composed")
            #expect(adapter[key: decomposed] == "decomposed")
            // Another process reads each spelling's own value too.
            for (key, value) in [("caf\u{E9}", "composed"), ("cafe\u{301}", "decomposed")] {
                let probe = try Helper.run(["probe-key", suite.name, key], configDirectory: suite.directory.url)
                #expect(probe.output.contains("value=\(value)\n"), "\(key.unicodeScalars.count): \(probe.output)")
            }
            try adapter.set(1, for: Key<Int?>("new"))
            #expect(try Self.pythonReading(suite.fileURL, skipping: ["new"]) == before)
            try LargeSuiteAttackTests.runInChild([.init(key: "child", value: "2")], suite: suite)
            #expect(try Self.pythonReading(suite.fileURL, skipping: ["new", "child"]) == before)
            #expect(adapter[key: decomposed] == "decomposed")

            // Writes of both spellings in one flush land each on its own entry, and observers hear each.
            let heard = Locked<[String]>([])
            let observation = adapter.observe(decomposed, options: []) { change in
                heard.withLock { $0.append(change.newValue ?? "nil") }
            }
            adapter[key: decomposed] = "D2"
            adapter[key: composed] = "C2"
            #expect(adapter[key: decomposed] == "D2")
            #expect(adapter[key: composed] == "C2")
            try adapter.flush()
            var after = try Self.pythonReading(suite.fileURL, skipping: ["new", "child"])
            #expect(after.contains("'caf\\xe9' 'C2'") && after.contains("'cafe\\u0301' 'D2'"), "\(after)")
            #expect(eventually { heard.withLock { $0.contains("D2") } })
            withExtendedLifetime(observation) {}

            // modify changes the spelling it names, exactly once.
            try adapter.modify(decomposed) { $0 = ($0 ?? "") + "+" }
            after = try Self.pythonReading(suite.fileURL, skipping: ["new", "child"])
            #expect(after.contains("'caf\\xe9' 'C2'") && after.contains("'cafe\\u0301' 'D2+'"), "\(after)")

            // Removing one spelling leaves the other with its own value.
            adapter[key: decomposed] = nil
            try adapter.flush()
            after = try Self.pythonReading(suite.fileURL, skipping: ["new", "child"])
            #expect(after.contains("'caf\\xe9' 'C2'"))
            #expect(!after.contains("D2"))
            #expect(adapter[key: composed] == "C2")
            // A spelling the file no longer holds reads the equal one's entry, as Swift's String compares them.
            #expect(adapter[key: decomposed] == "C2")
            #expect(suite.diagnostics.isEmpty, "\(suite.diagnostics)")
        }

        @Test("a key that starts with U+FFFF, the mark of a spelling's own name, is only a key")
        func keyStartingWithTheMark() throws {
            let suite = IsolatedSuite()
            try Self.pythonWrites(
                "{'\\uffffcafe': 'from python', 'other': 'x'}",
                format: "FMT_BINARY",
                to: suite.fileURL
            )
            let fromPython = Key<String?>("\u{FFFF}cafe")
            #expect(suite.adapter[key: fromPython] == "from python")
            #expect(suite.adapter.store.snapshot() == ["\u{FFFF}cafe": .string("from python"), "other": .string("x")])
            // XML cannot hold U+FFFF, so the library writes no key that holds it; the file's own entry stays.
            #expect(throws: DefaultsError.self) { try suite.adapter.set("changed", for: fromPython) }
            #expect(throws: DefaultsError.self) {
                try suite.adapter.set("v", for: Key<String?>(KeySpelling.name(of: "x")))
            }
            try suite.adapter.set("y", for: Key<String?>("other"))
            let after = try Self.pythonReading(suite.fileURL)
            #expect(after == "binary\n'\\uffffcafe' 'from python'\n'other' 'y'\n", "\(after)")
            #expect(suite.adapter[key: fromPython] == "from python")
        }

        @Test("a snapshot holds the first of two spellings, and removeAll() removes both")
        func twoSpellingsInSnapshotAndRemoveAll() throws {
            let suite = IsolatedSuite()
            try Self.pythonWrites(
                "{'caf\\u00e9': 'composed', 'cafe\\u0301': 'decomposed', 'other': 'x'}",
                format: "FMT_BINARY",
                to: suite.fileURL
            )
            let store = suite.adapter.store
            let snapshot = store.snapshot()
            #expect(snapshot.count == 2)
            #expect(snapshot["other"] == .string("x"))
            #expect(!snapshot.keys.contains { KeySpelling.isMarked($0) })
            suite.adapter.removeAll()
            try suite.adapter.flush()
            let after = try Self.pythonReading(suite.fileURL)
            #expect(!after.contains("composed") && !after.contains("'other'"), "\(after)")
        }

        @Test("a dictionary value holding two spellings of one key, in a binary file, stays through writes")
        func twoSpellingsInAValue() throws {
            let suite = IsolatedSuite()
            try Self.pythonWrites(
                "{'map': {'caf\\u00e9': 'composed', 'cafe\\u0301': 'decomposed'}, 'other': 'x'}",
                format: "FMT_BINARY",
                to: suite.fileURL
            )
            let before = try Self.pythonReading(suite.fileURL)
            let adapter = suite.adapter
            // Read as a dictionary can hold it: one of the two, the first in the file.
            #expect(adapter[key: Key<[String: String]?>("map")]?.count == 1)
            try adapter.set(1, for: Key<Int?>("new"))
            #expect(try Self.pythonReading(suite.fileURL, skipping: ["new"]) == before)
        }

        @Test("a binary file with a number key, a null and a UID keeps them all through an unrelated write")
        func objectsOutsideTheModel() throws {
            let suite = IsolatedSuite()
            try BinaryPropertyList.objectKeys([
                (.string("name"), .string("kept")),
                (.integer(7), .string("seven")),
                (.string("nothing"), .null),
                (.string("reference"), .uid(3)),
                (.string("list"), .array([.integer(1), .null])),
            ])
            .encoded
            .write(to: suite.fileURL)
            let original = try Data(contentsOf: suite.fileURL)
            let foundation = try PropertyListSerialization.propertyList(from: original, format: nil)
            try #require((foundation as? [AnyHashable: Any])?.count == 5, "Foundation reads a dictionary")
            let before = try Self.pythonReading(suite.fileURL)
            let adapter = suite.adapter
            #expect(adapter.storedValues() == ["name": .string("kept")])
            try adapter.set(1, for: Key<Int?>("new"))
            #expect(try Self.pythonReading(suite.fileURL, skipping: ["new"]) == before)
            let written = try PropertyListSerialization.propertyList(
                from: Data(contentsOf: suite.fileURL),
                format: nil
            )
            #expect((written as? [AnyHashable: Any])?.count == 6)
            #expect(adapter.storedValues() == ["name": .string("kept"), "new": .integer(1)])
            #expect(!suite.diagnostics.contains { $0.kind == .damagedFile }, "\(suite.diagnostics)")
            try adapter.checkHealth()
            // removeAll removes what reads see; the entries reads do not see stay.
            adapter.removeAll()
            try adapter.flush()
            let left = try PropertyListSerialization.propertyList(from: Data(contentsOf: suite.fileURL), format: nil)
            #expect((left as? [AnyHashable: Any])?.count == 4)
            #expect(adapter.storedValues().isEmpty)
        }

        @Test("an XML file holding a keyed archiver's reference keeps it through an unrelated write")
        func archiverReferenceInXML() throws {
            let suite = IsolatedSuite()
            try Data(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
                <plist version="1.0">
                <dict>
                \t<key>name</key>
                \t<string>kept</string>
                \t<key>ref</key>
                \t<dict>
                \t\t<key>CF$UID</key>
                \t\t<integer>3</integer>
                \t</dict>
                </dict>
                </plist>

                """
                .utf8
            )
            .write(to: suite.fileURL)
            func foundationEntries() throws -> [AnyHashable: Any]? {
                try PropertyListSerialization.propertyList(from: Data(contentsOf: suite.fileURL), format: nil)
                    as? [AnyHashable: Any]
            }
            let before = try #require(try foundationEntries(), "Foundation reads a dictionary")
            try #require(before.count == 2 && "\(type(of: before["ref"]!))".contains("UID"))
            let adapter = suite.adapter
            #expect(adapter.storedValues() == ["name": .string("kept")])
            try adapter.set(1, for: Key<Int?>("new"))
            let after = try #require(try foundationEntries())
            #expect(after.count == 3)
            #expect(after["ref"].map { "\(type(of: $0))".contains("UID") } == true)
            #expect(after["name"] as? String == "kept")
            #expect(try String(contentsOf: suite.fileURL, encoding: .utf8).hasPrefix("<?xml"))
            try LargeSuiteAttackTests.runInChild([.init(key: "child", value: "2")], suite: suite)
            #expect(try foundationEntries()?.count == 4)
            #expect(!suite.diagnostics.contains { $0.kind == .damagedFile }, "\(suite.diagnostics)")
        }

        @Test("a NaN's payload and sign read back bit for bit, and no observer hears another process's write of them")
        func nanPayloadsAndSigns() throws {
            let suite = IsolatedSuite()
            let adapter = suite.adapter
            let payload = Double(bitPattern: 0x7ff0_0000_0000_0001)
            let negative = -Double.nan
            let float = Float(bitPattern: 0x7f80_0001)
            let heard = Locked<[DefaultsChange<PropertyListValue?>]>([])
            let token = adapter.observeStoredValues { batch in heard.withLock { $0 += batch } }
            defer { token.invalidate() }
            try adapter.set(payload, for: Key<Double?>("payload"))
            try adapter.set(negative, for: Key<Double?>("negative"))
            try adapter.set(float, for: Key<Float?>("float"))
            try LargeSuiteAttackTests.runInChild([.init(key: "other", value: "1")], suite: suite)
            try adapter.checkHealth()
            try adapter.set("done", for: Key<String?>("mark"))
            let deadline = Date().addingTimeInterval(5)
            while !heard.withLock({ $0.contains { $0.key == "mark" } }), Date() < deadline { usleep(2_000) }
            let heardKeys = heard.withLock { $0.map(\.key) }
            #expect(heardKeys == ["payload", "negative", "float", "other", "mark"])
            // Read back from the file the other process wrote.
            #expect(adapter[key: Key<Double?>("payload")]?.bitPattern == payload.bitPattern)
            #expect(adapter[key: Key<Double?>("negative")]?.bitPattern == negative.bitPattern)
            #expect(adapter[key: Key<Float?>("float")]?.bitPattern == float.bitPattern)
            // A NaN that a property list's <real> cannot carry is refused, never changed.
            #expect(throws: DefaultsError.self) {
                try adapter.set(PropertyListValue.double(payload), for: Key<PropertyListValue?>("raw"))
            }
            #expect(throws: DefaultsError.self) {
                try adapter.set(PropertyListValue.array([.double(negative)]), for: Key<PropertyListValue?>("raw"))
            }
            try adapter.set(PropertyListValue.double(.nan), for: Key<PropertyListValue?>("raw"))
        }
    }
}

/// Runs Python 3 (`python3` on the path), as another tool that writes property lists would.
enum Python {
    struct Result {
        var status: Int32
        var output: String
        var errors: String
    }

    static func run(_ script: String, _ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read before waiting: a full pipe would stall the script.
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            output: String(decoding: out, as: UTF8.self),
            errors: String(decoding: err, as: UTF8.self)
        )
    }
}

#endif
