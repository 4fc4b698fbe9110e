import Foundation
import Testing
import TypedDefaultsTestSupport

#if !TYPED_DEFAULTS_FOUNDATION_STORAGE  // needs the Linux file store; see FileStoreOnly.swift

@testable import TypedDefaults

/// Issue 12's write and read paths of the file store, attacked on suites of a few thousand keys by other
/// processes, other programs and a hostile file system: a write splices the entries it changes into the file's
/// image, and a changed file is read by the entries whose bytes differ from it.
///
/// What must hold whatever they do: no write is lost, every read is what Foundation's reader finds in the file,
/// observers hear exactly the values that changed, with the right old and new values, and a file only
/// TypedDefaults wrote is laid out exactly as writing its values whole lays it out.
extension Hostile {
    @Suite("Hostile: large suite attacks")
    struct LargeSuiteAttackTests {
        static let seeded: [String: PropertyListValue] = Dictionary(
            uniqueKeysWithValues: (0..<3_000).map { ("bulk.\($0)", .string("value \($0) & <more>")) }
        )

        /// Values of every type, in every shape, under generated keys.
        static let mixed = Dictionary(
            uniqueKeysWithValues: PropertyListReaderTests.storable(seed: 12, count: 60)
                .map { ("mixed.\($0.key)", $0.value) }
        )

        /// Keys that sort unlike their bytes, need escaping, or that Swift takes to be equal though their bytes
        /// differ (the Kelvin sign and "K"; "é" precomposed and decomposed); and the suite's first and last.
        static let awkwardKeys = [
            "K", "\u{212A}", "é", "e\u{301}", "&<>\r", "a\rb", "🙂", "日本語", "", " lead", "bulk.0", "bulk.2999",
            "zz.last", "\u{FFFD}",
        ]

        static let awkwardValues = ["&amp; <not a tag>", "line\r\nend", "ä\r", "", "  spaced  ", "🙂 \u{212A}"]

        /// A suite whose file TypedDefaults wrote whole with `values`, and whose adapter has read it.
        static func largeSuite(
            _ values: [String: PropertyListValue] = seeded,
            writePolicy: WritePolicy = .coalesced
        ) throws -> IsolatedSuite {
            let suite = IsolatedSuite(writePolicy: writePolicy)
            try suite.adapter.modifyStoredValues { $0 = values }
            return suite
        }

        /// One edit that a child process or this one makes: a `nil` value removes the key.
        struct Edit {
            var key: String
            var value: String?

            var json: [String] { value.map { ["set", key, $0] } ?? ["remove", key] }
        }

        static func randomEdits(_ random: inout SeededGenerator) -> [Edit] {
            (0..<(3 + random.below(8)))
                .map { _ in
                    let key =
                        random.chance(45)
                        ? random.pick(awkwardKeys)
                        : random.chance(60) ? "bulk.\(random.below(3_000))" : "new.\(random.below(50))"
                    let value = random.chance(25) ? nil : random.pick(awkwardValues) + " \(random.below(1_000))"
                    return Edit(key: key, value: value)
                }
        }

        /// Makes `edits` in a new child process, as another program using TypedDefaults would, and flushes them.
        static func runInChild(_ edits: [Edit], suite: IsolatedSuite) throws {
            let script = suite.directory.url.appendingPathComponent(".script-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: script) }
            try JSONSerialization.data(withJSONObject: edits.map(\.json)).write(to: script)
            let result = try Helper.run(["edit-script", suite.name, script.path], configDirectory: suite.directory.url)
            #expect(result.status == 0, "\(result.errors)")
            #expect(result.output.contains("done"))
        }

        /// Checks that the file holds `model` as Foundation reads it (values and the keys' spelling), laid out
        /// exactly as writing those values whole lays them out.
        static func expectFile(
            of suite: IsolatedSuite,
            holds model: [String: PropertyListValue],
            _ comment: Comment,
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws {
            let bytes = try Data(contentsOf: suite.fileURL)
            let values = try #require(foundationReading(bytes), comment, sourceLocation: sourceLocation)
            #expect(differences(values, model) == "", comment, sourceLocation: sourceLocation)
            #expect(
                bytes == PropertyListXML.data(values),
                "not a whole write's layout: \(comment)",
                sourceLocation: sourceLocation
            )
        }

        /// Keeps the store from reading the file in the background (for the file watch or a stale read) for the
        /// rest of the test, so that its next write, or a `checkHealth()`, is what finds another process's version:
        /// a check arranged an hour from now stands in for every other.
        static func holdBackgroundReloads(_ suite: IsolatedSuite) throws {
            let store = try #require(suite.adapter.store as? FileStore)
            store.reloads.request(for: store, within: .seconds(3600))
        }

        /// The net change of each key over `heard`, leaving out keys back where they started; and the changes
        /// that do not start from the value the last change of their key left.
        static func netChanges(
            _ heard: [DefaultsChange<PropertyListValue?>]
        ) -> (net: Set<DefaultsStoreChange>, broken: [String]) {
            var first: [String: PropertyListValue?] = [:]
            var last: [String: PropertyListValue?] = [:]
            var broken: [String] = []
            for change in heard {
                if let previous = last[change.key], !previous.isIdentical(to: change.oldValue) {
                    broken.append(
                        "\(change.key.debugDescription) from \(change.oldValue as Any) after \(previous as Any)"
                    )
                }
                if first[change.key] == nil { first[change.key] = .some(change.oldValue) }
                last[change.key] = .some(change.newValue)
            }
            let net = last.compactMap { key, new -> DefaultsStoreChange? in
                let old = first[key] ?? nil
                return old.isIdentical(to: new) ? nil : DefaultsStoreChange(key: key, oldValue: old, newValue: new)
            }
            return (Set(net), Array(broken.prefix(5)))
        }

        /// Whether the store holds an image of the very version its values come from: right after it read another
        /// writer's version, that it read it by what changed since its own image (a whole read makes none).
        static func readByImage(_ suite: IsolatedSuite) throws -> Bool {
            let store = try #require(suite.adapter.store as? FileStore)
            let (isXML, version) = store.image.withLock { ($0?.image.xml != nil, $0?.version) }
            return isXML && version != nil && store.state.withLock { $0.version } == version
        }

        // MARK: Processes

        @Test("three processes writing a large suite in turn: every last write lands, and the file is a whole write")
        func processesInTurn() throws {
            let suite = try Self.largeSuite()
            let adapter = suite.adapter
            let heard = Heard(adapter)
            defer { heard.token.invalidate() }
            var model = Self.seeded
            var random = SeededGenerator(seed: 12)
            for round in 0..<3 {
                let start = model
                // This process's write, not a reload, finds the first child's version: its changes are
                // announced by the write.
                try Self.holdBackgroundReloads(suite)
                for writer in ["first child", "this process", "second child"] {
                    let edits = Self.randomEdits(&random)
                    for edit in edits { model[edit.key] = edit.value.map(PropertyListValue.string) }
                    guard writer == "this process" else {
                        try Self.runInChild(edits, suite: suite)
                        try Self.expectFile(of: suite, holds: model, "round \(round), after the \(writer)'s edits")
                        continue
                    }
                    // Each of the three ways to write, each merging into the first child's version.
                    switch round {
                    case 0:
                        for (index, edit) in edits.enumerated() {
                            adapter[key: Key<String?>(edit.key)] = edit.value
                            // Some edits reach the file alone, some together with others.
                            if index % 3 == 0 { try adapter.flush() }
                        }
                        try adapter.flush()
                    case 1:
                        try adapter.modifyStoredValues { values in
                            for edit in edits { values[edit.key] = edit.value.map(PropertyListValue.string) }
                        }
                    default:
                        for edit in edits { try adapter.modify(Key<String?>(edit.key)) { $0 = edit.value } }
                    }
                    try Self.expectFile(of: suite, holds: model, "round \(round), after this process's edits")
                }
                // This process reads what the second child wrote by the entries that changed: exactly the file.
                try adapter.checkHealth()
                #expect(try Self.readByImage(suite), "round \(round)")
                #expect(differences(adapter.storedValues(), model) == "", "round \(round)")
                // Every change heard follows on from the last of its key, and together they make the round's.
                let (net, broken) = Self.netChanges(try heard.changesSinceLastTime(mark: .removed))
                #expect(broken == [], "round \(round)")
                #expect(net == Self.changes(from: start, to: model), "round \(round)")
            }
            // A new process reads the suite whole, and its write keeps every value.
            try Self.runInChild([Edit(key: "fresh", value: "process")], suite: suite)
            model["fresh"] = .string("process")
            try Self.expectFile(of: suite, holds: model, "after a new process's write")
        }

        @Test("three processes writing different and the same keys of a large suite at once lose no write")
        func processesAtOnce() throws {
            let suite = try Self.largeSuite()
            let adapter = suite.adapter
            let children = try ["one", "two"]
                .map { prefix in
                    try Helper.start(
                        ["write-distinct", suite.name, prefix, "300"],
                        configDirectory: suite.directory.url
                    )
                }
            // Meanwhile this process writes keys of its own, seeded and awkward ones, and a shared counter.
            var model = Self.seeded
            for index in 0..<150 {
                adapter[key: Key<Int>("mine.\(index % 25)", default: -1)] = index
                adapter[key: Key<String?>("bulk.\(index)")] = "rewritten \(index)"
                let awkward = Self.awkwardKeys[index % Self.awkwardKeys.count]
                adapter[key: Key<String?>(awkward)] = "awkward \(index)"
                model["bulk.\(index)"] = .string("rewritten \(index)")
                model[awkward] = .string("awkward \(index)")
                if index % 10 == 0 { try adapter.flush() }
                if index % 15 == 0 { try adapter.modify(Key<Int>("counter", default: 0)) { $0 += 1 } }
            }
            try adapter.flush()
            for child in children {
                child.process.waitUntilExit()
                #expect(child.process.terminationStatus == 0, "\(child.output)")
            }
            for slot in 0..<25 {
                model["mine.\(slot)"] = .integer(Int64(slot + 125))
                model["one.\(slot)"] = .integer(Int64(slot + 275))
                model["two.\(slot)"] = .integer(Int64(slot + 275))
            }
            model["counter"] = .integer(10)
            try Self.expectFile(of: suite, holds: model, "after three writers at once")
            try adapter.checkHealth()
            #expect(differences(adapter.storedValues(), model) == "")
        }

        // MARK: Other programs

        /// Every change an observer of every key hears, cut into the batches that end at a mark this process writes.
        final class Heard: Sendable {
            static let mark = "zz.mark"
            private let changes = Locked<[DefaultsChange<PropertyListValue?>]>([])
            private let marks = Locked(0)
            let token: DefaultsObservation
            let adapter: DefaultsAdapter<DefaultsKeys>

            init(_ adapter: DefaultsAdapter<DefaultsKeys>) {
                self.adapter = adapter
                let changes = self.changes
                token = adapter.observeStoredValues { batch in changes.withLock { $0 += batch } }
            }

            /// What happens to the mark once heard.
            enum Mark {
                /// Written to the file, so that what this process reads is what the file holds.
                case flushed
                /// Left pending, so that what is pending stays so.
                case pending
                /// Taken back before it reached the file, so that the file is left as it is.
                case removed
            }

            /// The changes (but the mark's) heard since the last call, up to a mark written now: every change
            /// announced before this call, and none after.
            func changesSinceLastTime(mark disposal: Mark = .flushed) throws -> [DefaultsChange<PropertyListValue?>] {
                // A reload still due happens first, so that what it announces comes before the mark.
                try? adapter.checkHealth()
                let number = marks.withLock { marks in
                    marks += 1
                    return marks
                }
                let value = PropertyListValue.string("mark \(number)")
                adapter[key: Key<PropertyListValue?>(Self.mark)] = value
                let heard = eventually(within: .seconds(10)) {
                    changes.withLock { $0.contains { $0.key == Self.mark && $0.newValue == value } }
                }
                #expect(heard, "the mark was never heard")
                switch disposal {
                case .flushed: try adapter.flush()
                case .pending: break
                case .removed:
                    adapter[key: Key<PropertyListValue?>(Self.mark)] = nil
                    try adapter.flush()
                }
                return changes.withLock { changes in
                    defer { changes.removeAll() }
                    return changes.filter { $0.key != Self.mark }
                }
            }

            /// ``changesSinceLastTime(mark:)`` as a set, to compare with the changes between two sets of values.
            func since(mark disposal: Mark = .flushed) throws -> Set<DefaultsStoreChange> {
                Set(
                    try changesSinceLastTime(mark: disposal)
                        .map { DefaultsStoreChange(key: $0.key, oldValue: $0.oldValue, newValue: $0.newValue) }
                )
            }
        }

        /// The changes from `old` to `new`, one per key.
        static func changes(
            from old: [String: PropertyListValue],
            to new: [String: PropertyListValue]
        ) -> Set<DefaultsStoreChange> {
            Set(old.changes(to: new))
        }

        /// Rewrites the file in place, as Foundation and Python do: truncated, then written.
        static func rewriteInPlace(_ url: URL, _ bytes: [UInt8]) throws {
            let descriptor = open(url.path, O_WRONLY | O_TRUNC)
            try #require(descriptor >= 0)
            defer { close(descriptor) }
            #expect(bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == bytes.count)
        }

        static func rewriteText(_ url: URL, _ edit: (inout String) -> Void) throws {
            var text = try String(contentsOf: url, encoding: .utf8)
            edit(&text)
            try rewriteInPlace(url, Array(text.utf8))
        }

        /// The entry of `key` in the suite's dictionary as the whole writer lays it out, its line end included.
        static func entryRange(of key: String, in text: String) -> Range<String.Index> {
            let start = text.range(of: "\n\t<key>\(key)</key>\n")!
            // Nested entries are indented further: "\n\t<key>" starts only the suite's own.
            let end = text.range(of: "\n\t<key>", range: start.upperBound..<text.endIndex)?.lowerBound
            return text.index(after: start.lowerBound)..<text.index(after: end ?? suiteEnd(of: text))
        }

        /// Where the suite's dictionary closes (the line end before `</dict>`).
        static func suiteEnd(of text: String) -> String.Index {
            text.range(of: "\n</dict>\n</plist>", options: .backwards)!.lowerBound
        }

        /// Runs `program` in Python on the file loaded by plistlib as `d`, then dumps `d` back in place (keys
        /// sorted by code point, its own layout of values).
        static func python(_ url: URL, _ program: String) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [
                "python3", "-c",
                "import plistlib, sys\npath = sys.argv[1]\nd = plistlib.load(open(path, 'rb'))\n" + program
                    + "\nplistlib.dump(d, open(path, 'wb'))",
                url.path,
            ]
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
        }

        /// Another program's change to the file, and whether this process must read the result by what changed
        /// since its image (`nil`: the program's own layout decides).
        struct Attack {
            var name: String
            var readByImage: Bool?
            /// Whether the file changes twice, this process reading both: observers then hear the net changes
            /// with the one in between.
            var twice = false
            var run: () throws -> Void
        }

        static func attacks(on suite: IsolatedSuite) -> [Attack] {
            let url = suite.fileURL
            return [
                Attack(name: "Foundation's synchronize()", readByImage: nil) {
                    let foundation = suite.foundationDefaults()
                    foundation.set("from Foundation", forKey: "bulk.3")
                    foundation.removeObject(forKey: "bulk.4")
                    foundation.set(42, forKey: "foundation.added")
                    #expect(foundation.synchronize())
                },
                Attack(name: "Python's plistlib", readByImage: nil) {
                    try python(url, "d['bulk.5'] = 'from Python \\u00e9'\ndel d['bulk.6']\nd['python.\\u212a'] = 7")
                },
                Attack(name: "a rewrite in place of the same size and modification time", readByImage: true) {
                    var before = stat()
                    stat(url.path, &before)
                    let text = try String(contentsOf: url, encoding: .utf8)
                    let bytes = Array(text.replacingOccurrences(of: "value 7 &amp;", with: "VALUE 7 &amp;").utf8)
                    let descriptor = open(url.path, O_WRONLY)
                    try #require(descriptor >= 0)
                    #expect(bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) } == bytes.count)
                    close(descriptor)
                    var times = [before.st_atim, before.st_mtim]
                    #expect(utimensat(AT_FDCWD, url.path, &times, 0) == 0)
                    var after = stat()
                    stat(url.path, &after)
                    #expect(after.st_ino == before.st_ino && after.st_size == before.st_size)
                    #expect(after.st_mtim.tv_sec == before.st_mtim.tv_sec)
                    #expect(after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)
                },
                Attack(name: "an entry moved out of order", readByImage: false) {
                    try rewriteText(url) { text in
                        let range = entryRange(of: "bulk.10", in: text)
                        let entry = text[range].replacingOccurrences(of: "value 10", with: "moved 10")
                        text.removeSubrange(range)
                        text.insert(contentsOf: entry, at: text.index(after: suiteEnd(of: text)))
                    }
                },
                Attack(name: "an entry moved into a dictionary value", readByImage: true) {
                    try rewriteText(url) { text in
                        text.removeSubrange(entryRange(of: "bulk.60", in: text))
                        let nested = text.range(of: "\n\t</dict>\n")!.lowerBound
                        text.insert(contentsOf: "\n\t\t<key>bulk.60</key>\n\t\t<string>moved in</string>", at: nested)
                    }
                },
                Attack(name: "a key written twice", readByImage: false) {
                    try rewriteText(url) { text in
                        text.insert(
                            contentsOf: "\t<key>bulk.20</key>\n\t<string>the second</string>\n",
                            at: entryRange(of: "bulk.20", in: text).upperBound
                        )
                    }
                },
                Attack(name: "CRLF line ends", readByImage: false) {
                    try rewriteText(url) { text in
                        text = text.replacingOccurrences(of: "value 30 &amp;", with: "crlf 30 &amp;")
                            .replacingOccurrences(of: "\n", with: "\r\n")
                    }
                },
                Attack(name: "a comment", readByImage: false) {
                    try rewriteText(url) { text in
                        text.insert(
                            contentsOf: "\t<!-- a comment -->\n",
                            at: entryRange(of: "bulk.40", in: text).upperBound
                        )
                        text = text.replacingOccurrences(of: "value 41 &amp;", with: "commented 41 &amp;")
                    }
                },
                Attack(name: "a key renamed in place, out of order", readByImage: false) {
                    try rewriteText(url) { text in
                        text = text.replacingOccurrences(
                            of: "\n\t<key>bulk.90</key>\n",
                            with: "\n\t<key>bulk.90~</key>\n"
                        )
                    }
                },
                Attack(name: "a stray character before an entry", readByImage: false) {
                    try rewriteText(url) { text in
                        text = text.replacingOccurrences(
                            of: "\n\t<key>bulk.70</key>\n",
                            with: "\nx<key>bulk.70</key>\n"
                        )
                    }
                },
                Attack(name: "a comment, then an old copy put back", readByImage: false, twice: true) {
                    // The copy is the file as this process last wrote it, of which it still holds the image.
                    let old = try String(contentsOf: url, encoding: .utf8)
                    try rewriteText(url) { text in
                        text.insert(
                            contentsOf: "\t<!-- later -->\n",
                            at: entryRange(of: "bulk.80", in: text).upperBound
                        )
                        text = text.replacingOccurrences(of: "value 80 &amp;", with: "later 80 &amp;")
                    }
                    try suite.adapter.checkHealth()
                    try rewriteInPlace(
                        url,
                        Array(old.replacingOccurrences(of: "value 81 &amp;", with: "older 81 &amp;").utf8)
                    )
                },
                Attack(name: "a binary property list", readByImage: false) {
                    var values = try #require(foundationReading(try Data(contentsOf: url)))
                    values["bulk.50"] = .string("binary 50")
                    values["bulk.51"] = nil
                    let data = try PropertyListSerialization.data(
                        fromPropertyList: PropertyListValue.dictionary(values).foundationObject,
                        format: .binary,
                        options: 0
                    )
                    try rewriteInPlace(url, Array(data))
                },
                Attack(name: "a truncated file", readByImage: false) {
                    let bytes = Array(try Data(contentsOf: url))
                    try rewriteInPlace(url, Array(bytes.prefix(bytes.count / 2)))
                },
            ]
        }

        @Test(
            "other programs' writes between ours: reads are what Foundation reads, observers hear exactly the changes"
        )
        func otherPrograms() throws {
            // Values of every type among the strings, for the other programs to lay out their own way.
            let suite = try Self.largeSuite(Self.seeded.merging(Self.mixed) { $1 })
            let adapter = suite.adapter
            let heard = Heard(adapter)
            defer { heard.token.invalidate() }
            _ = try heard.since()
            for (index, attack) in Self.attacks(on: suite).enumerated() {
                let name = attack.name
                let before = adapter.storedValues()
                try attack.run()
                try? adapter.checkHealth()
                if let byImage = attack.readByImage {
                    #expect(try Self.readByImage(suite) == byImage, "\(name): read by what changed")
                }
                let read = foundationReading(try Data(contentsOf: suite.fileURL))
                let values = adapter.storedValues()
                // A file Foundation cannot read is damaged: the last good values stay.
                #expect(differences(values, read ?? before) == "", "after \(name)")
                let changed = Self.changes(from: before, to: values)
                #expect(changed.isEmpty == (read == nil), "\(name) changed \(changed.count) values")
                let heardChanges = try heard.changesSinceLastTime()
                let (net, broken) = Self.netChanges(heardChanges)
                #expect(broken == [], "\(name)")
                #expect(
                    net == changed,
                    "\(name): heard \(net.subtracting(changed).prefix(3)), missed \(changed.subtracting(net).prefix(3))"
                )
                if !attack.twice { #expect(heardChanges.count == changed.count, "\(name): heard a key twice") }
                // The next write merges into what the other program left, wherever it put things.
                adapter[key: Key<String?>("after.\(index)")] = name
                try adapter.flush()
                #expect(try heard.changesSinceLastTime().map(\.key) == ["after.\(index)"])
                let written = try #require(foundationReading(try Data(contentsOf: suite.fileURL)), "after \(name)")
                var expected = values
                expected["after.\(index)"] = .string(name)
                expected[Heard.mark] = written[Heard.mark]
                #expect(differences(written, expected) == "", "after \(name) and a write")
                #expect(differences(adapter.storedValues(), expected) == "", "after \(name) and a write")
            }
        }

        // MARK: Observers

        @Test("another process's changes are heard exactly: around pending writes, a removeAll, a damaged file")
        func observersHearOtherProcesses() throws {
            // Pending writes stay pending until the test flushes them.
            let suite = try Self.largeSuite(writePolicy: .coalesced(within: .seconds(3600)))
            let adapter = suite.adapter
            let heard = Heard(adapter)
            defer { heard.token.invalidate() }
            let bulk1 = Recorder<DefaultsChange<String?>>()
            let bulk1Token = adapter.observe(Key<String?>("bulk.1")) { bulk1.append($0) }
            defer { bulk1Token.invalidate() }
            // An observer of the Kelvin sign hears the changes of "K", which Swift takes to be the same key.
            let kelvin = Recorder<DefaultsChange<String?>>()
            let kelvinToken = adapter.observe(Key<String?>("\u{212A}")) { kelvin.append($0) }
            defer { kelvinToken.invalidate() }
            _ = try heard.since()
            var model = adapter.storedValues()

            /// Makes `edits` in another process; returns the changes this process must hear of them.
            func child(_ edits: [Edit]) throws -> Set<DefaultsStoreChange> {
                let before = model
                for edit in edits { model[edit.key] = edit.value.map(PropertyListValue.string) }
                try Self.runInChild(edits, suite: suite)
                return Self.changes(from: before, to: model)
            }

            // Keys changed, removed and added elsewhere, and one set to the value it has: five changes.
            let five = try child([
                Edit(key: "bulk.1", value: "one"), Edit(key: "bulk.2", value: nil),
                Edit(key: "bulk.2999", value: "&<>\r"), Edit(key: "bulk.3", value: "value 3 & <more>"),
                Edit(key: "K", value: "kelvin"), Edit(key: "é", value: "e"),
            ])
            #expect(five.count == 5)
            #expect(try heard.since() == five)
            #expect(try Self.readByImage(suite), "read by what changed")
            #expect(bulk1.all.map(\.oldValue) == ["value 1 & <more>"])
            #expect(bulk1.all.map(\.newValue) == ["one"])

            // A write of this process that another process's later write of the same key overtakes, found by this
            // process's flush (no reload first): the later value wins, in reads and in the file, and is heard.
            adapter[key: Key<String?>("bulk.10")] = "mine"
            #expect(try heard.changesSinceLastTime(mark: .pending).map(\.key) == ["bulk.10"])
            model = adapter.storedValues()
            try Self.holdBackgroundReloads(suite)
            let theirs = try child([
                Edit(key: "bulk.10", value: "theirs"), Edit(key: "bulk.11", value: "theirs"),
                Edit(key: "\u{212A}", value: "the Kelvin sign"),
            ])
            adapter[key: Key<String?>("bulk.12")] = "pending"
            try adapter.flush()
            #expect(
                try heard.since()
                    == theirs.union([
                        DefaultsStoreChange(key: "bulk.12", oldValue: model["bulk.12"], newValue: .string("pending"))
                    ])
            )
            #expect(kelvin.all.map(\.newValue) == ["kelvin", "the Kelvin sign"])
            #expect(adapter[key: Key<String?>("bulk.10")] == "theirs")
            model["bulk.12"] = .string("pending")
            model[Heard.mark] = adapter.storedValues()[Heard.mark]
            try Self.expectFile(of: suite, holds: model, "after a later write of another process")

            // A removeAll, then another process's writes: they came later, so they stay and are heard, whether a
            // reload or this process's flush finds them.
            adapter.removeAll()
            let removed = try heard.changesSinceLastTime(mark: .pending)
            #expect(Set(removed.map(\.key)) == Set(model.keys).subtracting([Heard.mark]))
            #expect(removed.allSatisfy { $0.oldValue != nil && $0.newValue == nil })
            model = adapter.storedValues()
            let first = try child([Edit(key: "bulk.20", value: "after removeAll"), Edit(key: "late", value: "late")])
            #expect(try heard.since(mark: .pending) == first)
            try Self.holdBackgroundReloads(suite)
            let second = try child([
                Edit(key: "bulk.21", value: "after removeAll"), Edit(key: "later", value: "later"),
            ])
            try adapter.flush()
            #expect(try heard.since(mark: .pending) == second)
            #expect(adapter.storedValues().keys.sorted() == ["bulk.20", "bulk.21", "late", "later", Heard.mark])
            try adapter.flush()
            model = adapter.storedValues()
            try Self.expectFile(of: suite, holds: model, "after the removeAll")
            let added = try child((0..<7).map { Edit(key: "again.\($0)", value: "\($0)") })
            #expect(try heard.since() == added)

            // The file torn by another program: nothing changes for readers. Repaired with three values
            // changed: exactly those three are heard.
            model = adapter.storedValues()
            let intact = try Data(contentsOf: suite.fileURL)
            try Self.rewriteInPlace(suite.fileURL, Array(intact.prefix(intact.count / 2)))
            #expect(throws: DefaultsError.self) { try adapter.checkHealth() }
            // The mark stays pending: written, it would replace the torn file.
            #expect(try heard.since(mark: .pending).isEmpty)
            model[Heard.mark] = nil
            var repaired = model
            repaired["again.1"] = .string("repaired")
            repaired["again.2"] = nil
            repaired["again.new"] = .integer(3)
            try Self.rewriteInPlace(
                suite.fileURL,
                Array(try PropertyListReaderTests.foundationXML(repaired))
            )
            #expect(try heard.since(mark: .pending) == Self.changes(from: model, to: repaired))
            repaired[Heard.mark] = adapter.storedValues()[Heard.mark]
            #expect(differences(adapter.storedValues(), repaired) == "")
            try adapter.flush()
            try Self.expectFile(of: suite, holds: repaired, "after the repair and a write")
        }

        // MARK: Threads

        @Test("threads writing, flushing, modifying and reading while another process writes: nothing lost or misheard")
        func threadsAndAProcess() throws {
            let suite = try Self.largeSuite()
            let adapter = suite.adapter
            let heard = Locked<[DefaultsChange<PropertyListValue?>]>([])
            let token = adapter.observeStoredValues { batch in heard.withLock { $0 += batch } }
            defer { token.invalidate() }
            // Immediate writes of a 32 KB payload and a counter, as fast as it can.
            let storm = try Helper.start(["storm", suite.name], configDirectory: suite.directory.url)
            defer { storm.kill() }
            #expect(storm.waitForOutput(containing: "durable 3"))
            let threads = 3
            let rounds = 200
            let problems = Locked<[String]>([])
            let group = DispatchGroup()
            for thread in 0..<threads {
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    for round in 0..<rounds {
                        let own = "t\(thread).\(round % 7)"
                        adapter[key: Key<Int>(own, default: -1)] = round
                        do {
                            if round % 5 == 0 { try adapter.flush() }
                            if round % 6 == 0 { try adapter.modify(Key<Int>("shared", default: 0)) { $0 += 1 } }
                        } catch {
                            problems.withLock { $0.append("\(error)") }
                        }
                        // Every snapshot has the keys nobody writes, and this thread's own last write.
                        let snapshot = adapter.storedValues()
                        for index in [0, 1_499, 2_999] where snapshot["bulk.\(index)"] != Self.seeded["bulk.\(index)"] {
                            problems.withLock { $0.append("a snapshot without bulk.\(index)") }
                        }
                        if snapshot[own] != .integer(Int64(round)) {
                            problems.withLock { $0.append("thread \(thread) read \(own) as not \(round)") }
                        }
                    }
                }
            }
            #expect(group.wait(timeout: .now() + 60) == .success, "the threads hung")
            // Its every write succeeded: a failed one ends it.
            #expect(storm.process.isRunning, "the other process stopped: \(storm.output.suffix(300))")
            storm.kill()
            try adapter.flush()
            try adapter.checkHealth()
            #expect(problems.withLock { $0 }.prefix(5) == [])
            let file = try #require(foundationReading(try Data(contentsOf: suite.fileURL)))
            var expected = Self.seeded
            expected["counter"] = file["counter"]
            expected["payload"] = file["payload"]
            for thread in 0..<threads {
                for slot in 0..<7 {
                    expected["t\(thread).\(slot)"] = .integer(Int64((0..<rounds).last { $0 % 7 == slot }!))
                }
            }
            expected["shared"] = .integer(Int64(threads * ((rounds + 5) / 6)))
            try Self.expectFile(of: suite, holds: expected, "after the threads and the other process")
            #expect(differences(adapter.storedValues(), expected) == "")

            // Each change heard starts from the value the one before it for the same key left, and together
            // they make the whole run's.
            adapter[key: Key<String?>(Heard.mark)] = "end"
            #expect(eventually { heard.withLock { $0.last?.key == Heard.mark } })
            let (net, broken) = Self.netChanges(heard.withLock { $0 })
            #expect(broken == [])
            expected[Heard.mark] = .string("end")
            #expect(net == Self.changes(from: Self.seeded, to: expected))
        }

        // MARK: Edge sizes

        @Test("an empty suite, one key, the last key removed, by turns with another process: whole forms, exact reads")
        func edgeSizes() throws {
            let suite = IsolatedSuite(writePolicy: .coalesced(within: .seconds(3600)))
            let adapter = suite.adapter
            let heard = Heard(adapter)
            defer { heard.token.invalidate() }
            // Nothing to write: no file.
            try adapter.flush()
            #expect(!FileManager.default.fileExists(atPath: suite.fileURL.path))

            var model: [String: PropertyListValue] = [:]
            /// Checks that the file and this process's reads hold `model`, and that an observer heard `expected`
            /// (the marks taken back: the file stays as the step left it).
            func check(_ step: String, heard expected: Set<DefaultsStoreChange>) throws {
                try Self.expectFile(of: suite, holds: model, "\(step)")
                try adapter.checkHealth()
                #expect(differences(adapter.storedValues(), model) == "", "\(step)")
                #expect(try heard.since(mark: .removed) == expected, "\(step)")
            }
            // A removeAll of a suite without a file writes the empty suite's form.
            adapter.removeAll()
            try adapter.flush()
            try check("a removeAll without a file", heard: [])
            adapter[key: Key<String?>("only")] = "1"
            try adapter.flush()
            model["only"] = .string("1")
            try check(
                "one key written",
                heard: [DefaultsStoreChange(key: "only", oldValue: nil, newValue: .string("1"))]
            )
            try Self.runInChild([Edit(key: "only", value: "2")], suite: suite)
            model["only"] = .string("2")
            try adapter.checkHealth()
            #expect(try Self.readByImage(suite), "a suite of one key read by what changed")
            try check(
                "the one key changed by another process",
                heard: [DefaultsStoreChange(key: "only", oldValue: .string("1"), newValue: .string("2"))]
            )
            adapter[key: Key<String?>("only")] = nil
            try adapter.flush()
            model = [:]
            try check(
                "the last key removed",
                heard: [DefaultsStoreChange(key: "only", oldValue: .string("2"), newValue: nil)]
            )
            #expect(String(decoding: try Data(contentsOf: suite.fileURL), as: UTF8.self).contains("<dict/>"))
            try Self.runInChild([Edit(key: "é", value: "added")], suite: suite)
            model["é"] = .string("added")
            try check(
                "a key added elsewhere to the empty suite",
                heard: [DefaultsStoreChange(key: "é", oldValue: nil, newValue: .string("added"))]
            )
            try Self.runInChild([Edit(key: "e\u{301}", value: nil)], suite: suite)
            model = [:]
            try check(
                "the last key removed elsewhere, by its other spelling",
                heard: [DefaultsStoreChange(key: "é", oldValue: .string("added"), newValue: nil)]
            )
            adapter[key: Key<String?>("again")] = "3"
            try adapter.flush()
            model["again"] = .string("3")
            try check(
                "a key written again",
                heard: [DefaultsStoreChange(key: "again", oldValue: nil, newValue: .string("3"))]
            )
        }

        @Test("a key named CF$UID: never a file that Foundation reads as a keyed archiver's reference")
        func archiverReferenceKey() throws {
            let suite = IsolatedSuite()
            let adapter = suite.adapter
            // Foundation reads a dictionary holding only CF$UID with a number as a reference, the suite's own
            // (once its other keys are gone) or a value: every reader then takes the file for damaged, and a
            // new process's next write replaced the whole suite with its own values. Refused, with a typed error.
            #expect(throws: DefaultsError.self) { try adapter.set(1, for: Key<Int?>("CF$UID")) }
            #expect(throws: DefaultsError.self) {
                try adapter.set(["CF$UID": 1.5], for: Key<[String: Double]>("map", default: [:]))
            }
            #expect(throws: DefaultsError.self) {
                try adapter.modifyStoredValues { $0["CF$UID"] = .unsignedInteger(.max) }
            }
            #expect(throws: DefaultsError.self) {
                try adapter.set([["a": ["CF$UID": -1]]], for: Key<[[String: [String: Int]]]>("deep", default: []))
            }
            #expect(adapter.storedValues().isEmpty)
            // Anything else under that name reads back as written, alone or not, in every process.
            try adapter.set(["CF$UID": 1, "other": 2], for: Key<[String: Int]>("map", default: [:]))
            try adapter.set(["CF$UID": "text"], for: Key<[String: String]>("text", default: [:]))
            try adapter.set("text", for: Key<String?>("CF$UID"))
            try Self.expectFile(
                of: suite,
                holds: [
                    "CF$UID": .string("text"),
                    "map": .dictionary(["CF$UID": .integer(1), "other": .integer(2)]),
                    "text": .dictionary(["CF$UID": .string("text")]),
                ],
                "CF$UID with other keys, in values too"
            )
            adapter[key: Key<String?>("map")] = nil
            adapter[key: Key<String?>("text")] = nil
            try Self.expectFile(of: suite, holds: ["CF$UID": .string("text")], "CF$UID alone, with a string")
            try adapter.set(true, for: Key<Bool?>("CF$UID"))
            try Self.runInChild([Edit(key: "second", value: "2")], suite: suite)
            try Self.runInChild([Edit(key: "second", value: nil)], suite: suite)
            try Self.expectFile(of: suite, holds: ["CF$UID": .bool(true)], "CF$UID alone, after another process")
            try adapter.checkHealth()
            #expect(differences(adapter.storedValues(), ["CF$UID": .bool(true)]) == "")
            #expect(suite.diagnostics.isEmpty, "\(suite.diagnostics)")
        }

        @Test("a number under CF$UID that another program wrote, alone once TypedDefaults removes the other keys")
        func foreignArchiverReferenceKey() throws {
            let suite = IsolatedSuite(fileContents: ["CF$UID": 1, "other": 2])
            let adapter = suite.adapter
            #expect(adapter.storedValues() == ["CF$UID": .integer(1), "other": .integer(2)])
            adapter[key: Key<Int?>("other")] = nil
            // Written in binary form, where a dictionary holding only CF$UID is a dictionary to every reader.
            #expect(foundationReading(try Data(contentsOf: suite.fileURL)) == ["CF$UID": .integer(1)])
            #expect(try Data(contentsOf: suite.fileURL).starts(with: Array("bplist00".utf8)))
            try Self.runInChild([Edit(key: "second", value: "2")], suite: suite)
            try Self.runInChild([Edit(key: "second", value: nil)], suite: suite)
            #expect(foundationReading(try Data(contentsOf: suite.fileURL)) == ["CF$UID": .integer(1)])
            try adapter.checkHealth()
            #expect(adapter.storedValues() == ["CF$UID": .integer(1)])
            #expect(suite.diagnostics.isEmpty, "\(suite.diagnostics)")
        }
    }
}

/// How `actual` differs from `expected`, at most five keys of it; empty when they hold the same keys, spelled
/// alike, with identical values.
///
/// Large suites print too much to be compared whole in an expectation.
func differences(_ actual: [String: PropertyListValue], _ expected: [String: PropertyListValue]) -> String {
    var lines: [String] = []
    for (key, value) in expected where !actual[key].isIdentical(to: value) {
        lines.append("\(key.debugDescription): \(actual[key].map { "\($0)" } ?? "absent"), expected \(value)")
    }
    for key in actual.keys where expected[key] == nil { lines.append("\(key.debugDescription): unexpected") }
    let spelled = Set(actual.keys.map { Array($0.unicodeScalars) })
    for key in expected.keys where !spelled.contains(Array(key.unicodeScalars)) {
        lines.append("\(key.debugDescription): spelled otherwise")
    }
    return lines.sorted().prefix(5).joined(separator: "; ")
}

/// What Foundation's own reader finds in a suite's file; `nil` when it finds no dictionary of property-list
/// values.
func foundationReading(_ data: Data) -> [String: PropertyListValue]? {
    guard let object = try? PropertyListSerialization.propertyList(from: data, format: nil),
        case .dictionary(let values)? = PropertyListValue(foundationObject: object)
    else { return nil }
    return values
}

#endif
