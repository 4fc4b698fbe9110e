import Foundation
import Testing

#if !TYPED_DEFAULTS_FOUNDATION_STORAGE  // needs the Linux file store; see FileStoreOnly.swift

@testable import TypedDefaults

/// Attacks on "two spellings of one key are two keys" (KeySpelling): files with spellings that another
/// program rewrites, damages, or that reach the store through its backup copy.
extension Hostile {
    @Suite("Hostile: spellings of one key under attack")
    struct SpellingAttackTests {
        typealias Foreign = ForeignFileTests

        /// plistlib sorts keys by code point, so `cafe\u{301}` (e = 0x65) comes before `caf\u{E9}`: the
        /// decomposed spelling is the file's first, the composed one is kept under its private name.
        static let twoSpellings = "{'caf\\u00e9': 'composed', 'cafe\\u0301': 'decomposed', 'other': 'x'}"

        @Test("a damaged file recovered from a backup that holds two spellings reads each spelling's value")
        func backupWithSpellings() throws {
            let suite = IsolatedSuite()
            try Foreign.pythonWrites(Self.twoSpellings, format: "FMT_XML", to: suite.fileURL)
            // This process's write leaves a backup copy holding both spellings.
            try suite.adapter.set("1", for: Key<String?>("new"))
            let original = try Data(contentsOf: suite.fileURL)
            let backup = suite.directory.url.appendingPathComponent(".\(suite.name).plist.backup")
            #expect(eventually { (try? Data(contentsOf: backup)) == original })
            // Another program tears the file.
            try Data("not a property list {{{".utf8).write(to: suite.fileURL)

            // A new process recovers the last good copy from the backup.
            for (key, value) in [("caf\u{E9}", "composed"), ("cafe\u{301}", "decomposed")] {
                let probe = try Helper.run(["probe-key", suite.name, key], configDirectory: suite.directory.url)
                #expect(
                    probe.output.contains("value=\(value)\n"),
                    "\(key.unicodeScalars.count) scalars: \(probe.output)"
                )
            }
            // A new process's unrelated write replaces the torn file with the recovered values.
            try LargeSuiteAttackTests.runInChild([.init(key: "child", value: "2")], suite: suite)
            let bytes = try Data(contentsOf: suite.fileURL)
            #expect(bytes.range(of: Data("\u{FFFF}".utf8)) == nil, "a private name reached the file")
            let after = try Foreign.pythonReading(suite.fileURL)
            #expect(after.contains("'caf\\xe9' 'composed'"), "\(after)")
            #expect(after.contains("'cafe\\u0301' 'decomposed'"), "\(after)")
        }

        @Test("the defaults tool's write of an unrelated key keeps both spellings of another key")
        func defaultsToolWriteKeepsSpellings() throws {
            let suite = IsolatedSuite()
            try Foreign.pythonWrites(Self.twoSpellings, format: "FMT_XML", to: suite.fileURL)
            let before = try Foreign.pythonReading(suite.fileURL, skipping: ["other"])
            let result = try Helper.run(
                ["write", suite.name, "other", "y"],
                configDirectory: suite.directory.url,
                program: Helper.tool
            )
            #expect(result.status == 0, "\(result.errors)")
            let after = try Foreign.pythonReading(suite.fileURL)
            #expect(after.contains("'other' 'y'"), "\(after)")
            #expect(try Foreign.pythonReading(suite.fileURL, skipping: ["other"]) == before, "\(after)")
        }

        @Test("modifyStoredValues changing an unrelated key keeps both spellings of another key")
        func modifyStoredValuesKeepsSpellings() throws {
            let suite = IsolatedSuite()
            try Foreign.pythonWrites(Self.twoSpellings, format: "FMT_BINARY", to: suite.fileURL)
            let before = try Foreign.pythonReading(suite.fileURL, skipping: ["other"])
            try suite.adapter.modifyStoredValues { $0["other"] = .string("y") }
            #expect(try Foreign.pythonReading(suite.fileURL, skipping: ["other"]) == before)
            #expect(suite.adapter[key: Key<String?>("caf\u{E9}")] == "composed")
        }

        /// Four spellings of one key, equal to Swift's String: canonical NFD, combining marks in the other
        /// order, NFC, and a precomposed e-acute with the dot below after it.
        static let fourSpellings = ["e\u{323}\u{301}", "e\u{301}\u{323}", "\u{1EB9}\u{301}", "\u{E9}\u{323}"]

        @Test("four spellings of one key, each modified by two processes at once, count exactly")
        func fourSpellingsConcurrentModify() throws {
            #expect(Set(Self.fourSpellings).count == 1)
            let suite = IsolatedSuite()
            let python = Self.fourSpellings.map { spelling in
                "'" + spelling.unicodeScalars.map { String(format: "\\u%04x", $0.value) }.joined() + "': 0"
            }
            try Foreign.pythonWrites(
                "{" + python.joined(separator: ", ") + ", 'other': 'x'}",
                format: "FMT_XML",
                to: suite.fileURL
            )
            for spelling in Self.fourSpellings {
                #expect(suite.adapter[key: Key<Int?>(spelling)] == 0)
            }
            let rounds = 15
            let children = try Self.fourSpellings.flatMap { spelling in
                try (0..<2)
                    .map { _ in
                        try Helper.start(
                            ["increment-key", suite.name, spelling, "\(rounds)"],
                            configDirectory: suite.directory.url
                        )
                    }
            }
            for child in children {
                try #require(eventually(within: .seconds(120)) { !child.process.isRunning }, "\(child.output)")
                child.process.waitUntilExit()
                #expect(child.process.terminationStatus == 0, "\(child.output)")
            }
            let file = try Foreign.pythonReading(suite.fileURL)
            for spelling in Self.fourSpellings {
                let ascii = spelling.unicodeScalars
                    .map {
                        $0.value < 0x100
                            ? ($0.value < 0x80 ? String($0) : String(format: "\\x%02x", $0.value))
                            : String(format: "\\u%04x", $0.value)
                    }
                    .joined()
                #expect(file.contains("'\(ascii)' \(2 * rounds)\n"), "\(ascii): \(file)")
            }
            // This process, once it looks at the file again, reads each spelling's own count.
            try suite.adapter.checkHealth()
            for spelling in Self.fourSpellings {
                #expect(
                    suite.adapter[key: Key<Int?>(spelling)] == 2 * rounds,
                    "\(spelling.unicodeScalars.map(\.value))"
                )
            }
            #expect(suite.diagnostics.isEmpty, "\(suite.diagnostics)")
        }

        /// What it costs lives in the notes of the change that made it linear (removeAll of this file took 2.9 s
        /// in a debug build, each change searched for among 5040 entries; 0.15 s since): timings are not tests.
        @Test("a file holding 5040 spellings of one key keeps each through a write and empties with removeAll()")
        func thousandsOfSpellings() throws {
            let suite = IsolatedSuite()
            let made = try Python.run(
                """
                import plistlib, sys, itertools
                marks = ['\\u0334', '\\u05b0', '\\u0e38', '\\u0327', '\\u031b', '\\u0323', '\\u0301']
                values = {'a' + ''.join(p): i for i, p in enumerate(itertools.permutations(marks))}
                values['other'] = 'x'
                with open(sys.argv[1], 'wb') as f:
                    plistlib.dump(values, f, fmt=plistlib.FMT_XML)
                """,
                [suite.fileURL.path]
            )
            try #require(made.status == 0, "\(made.errors)")
            #expect(suite.adapter[key: Key<String?>("other")] == "x")
            try suite.adapter.set("y", for: Key<String?>("other"))
            let counted = try Python.run(
                "import plistlib, sys\nv = plistlib.load(open(sys.argv[1], 'rb'))\nprint(len(v), sorted(set(v.values()) - {'y'}) == list(range(5040)))",
                [suite.fileURL.path]
            )
            #expect(counted.output == "5041 True\n", "\(counted.output)\(counted.errors)")
            suite.adapter.removeAll()
            try suite.adapter.flush()
            let emptied = try Python.run(
                "import plistlib, sys\nprint(len(plistlib.load(open(sys.argv[1], 'rb'))))",
                [suite.fileURL.path]
            )
            #expect(emptied.output == "0\n", "\(emptied.output)\(emptied.errors)")
        }

        @Test("reset of both spellings in one call removes both")
        func resetBothSpellings() throws {
            let suite = IsolatedSuite()
            try Foreign.pythonWrites(Self.twoSpellings, format: "FMT_BINARY", to: suite.fileURL)
            let composed = Key<String?>("caf\u{E9}")
            let decomposed = Key<String?>("cafe\u{301}")
            #expect(suite.adapter[key: composed] == "composed")
            suite.adapter.reset([composed, decomposed])
            try suite.adapter.flush()
            let after = try Foreign.pythonReading(suite.fileURL)
            #expect(after == "binary\n'other' 'x'\n", "\(after)")
            #expect(suite.adapter[key: composed] == nil)
            #expect(suite.adapter[key: decomposed] == nil)
        }

        @Test("a spelling another program removes while a write to the other is pending reads the file's value")
        func spellingRemovedUnderPendingWrite() throws {
            let suite = IsolatedSuite(writePolicy: .coalesced(within: .seconds(3600)))
            try Foreign.pythonWrites(Self.twoSpellings, format: "FMT_XML", to: suite.fileURL)
            let adapter = suite.adapter
            let composed = Key<String?>("caf\u{E9}")
            let decomposed = Key<String?>("cafe\u{301}")
            #expect(adapter[key: composed] == "composed")
            #expect(adapter[key: decomposed] == "decomposed")
            // A write of the composed spelling (kept under its private name), in the journal only: the file is
            // not rebuilt before the test flushes.
            let store = try #require(adapter.store as? FileStore)
            store.folds.request(for: store, within: .seconds(3600))
            adapter[key: composed] = "C2"
            // Another program rewrites the file with the composed spelling only.
            try Foreign.pythonWrites("{'caf\\u00e9': 'composed', 'other': 'x'}", format: "FMT_XML", to: suite.fileURL)
            try adapter.flush()
            // The file must not hold two entries with the very same bytes (plistlib keeps the last, TypedDefaults
            // the first).
            let xml = String(decoding: try Data(contentsOf: suite.fileURL), as: UTF8.self)
            #expect(xml.components(separatedBy: "<key>caf\u{E9}</key>").count == 2, "\(xml)")
            let file = try Foreign.pythonReading(suite.fileURL)
            #expect(file == "xml\n'caf\\xe9' 'C2'\n'other' 'x'\n", "\(file)")

            // The file holds one entry, "café" = C2: every reader of this process should see it.
            #expect(adapter[key: composed] == "C2")
            // Docs/Durability.md: a spelling the file does not hold reads the entry of an equal one.
            #expect(adapter[key: decomposed] == "C2")
            #expect(adapter.store.snapshot()["caf\u{E9}"] == .string("C2"), "\(adapter.store.snapshot())")
            #expect(adapter.store.snapshot().count == 2, "\(adapter.store.snapshot())")
            // Another process agrees with the file.
            let probe = try Helper.run(["probe-key", suite.name, "cafe\u{301}"], configDirectory: suite.directory.url)
            #expect(probe.output.contains("value=C2\n"), "\(probe.output)")
        }
    }
}
#endif
