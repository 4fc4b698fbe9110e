import Foundation
import Testing
import TypedDefaultsTestSupport

#if !TYPED_DEFAULTS_FOUNDATION_STORAGE  // the journal is the Linux file store's

@testable import TypedDefaults

/// The journal's records: every value comes back exactly, and hostile bytes (a write a full disk cut short,
/// another program's bytes, lengths and counts that claim gigabytes) are skipped, never a crash, a hang or a
/// record made up.
@Suite("Journal records")
struct JournalTests {
    @Test("every generated value comes back bit for bit, in order, with removals and a removeAll")
    func roundTrip() {
        for seed: UInt64 in 1...20 {
            let entries = GeneratedValues.entries(seed: seed, count: 40).filter { $0.refusal == nil }
            var bytes: [UInt8] = []
            var expected: [SuiteJournal.Write] = []
            for (index, entry) in entries.enumerated() {
                let removing = index.isMultiple(of: 7)
                let value: PropertyListValue? = index.isMultiple(of: 5) ? nil : entry.value
                bytes += SuiteJournal.record(removingAll: removing, [(entry.key, value)], salt: seed)
                if removing { expected.append(.removeAll) }
                expected.append(.set(entry.key, value))
            }
            let read = SuiteJournal.read(bytes[...], salt: seed)
            #expect(read.consumed == bytes.count)
            #expect(!read.damaged)
            #expect(read.writes.count == expected.count)
            for (got, want) in zip(read.writes, expected) {
                switch (got, want) {
                case (.removeAll, .removeAll): continue
                case (.set(let gotKey, let gotValue), .set(let wantKey, let wantValue)):
                    #expect(Array(gotKey.utf8) == Array(wantKey.utf8), "seed \(seed)")
                    #expect(gotValue.isIdentical(to: wantValue), "seed \(seed): \(String(describing: gotValue))")
                default: Issue.record("seed \(seed): \(got) read for \(want)")
                }
            }
        }
    }

    @Test("a record cut short at its end is left for later, and one cut short before another is skipped to it")
    func cutShort() {
        let first = SuiteJournal.record(removingAll: false, [("a", .integer(1))], salt: 7)
        let second = SuiteJournal.record(removingAll: false, [("b", .string("two"))], salt: 7)
        for cut in 1..<second.count {
            // Still being written: what is there is read, and the rest waits.
            let partial = SuiteJournal.read((first + second.prefix(cut))[...], salt: 7)
            #expect(partial.writes == [.set("a", .integer(1))])
            #expect(partial.consumed >= first.count && partial.consumed <= first.count + cut)
            // Left by a failed write, with another process's record after it: read when no write is under way.
            let torn = SuiteJournal.read((first + second.prefix(cut) + second)[...], salt: 7, allWritten: true)
            #expect(torn.writes == [.set("a", .integer(1)), .set("b", .string("two"))], "cut at \(cut)")
            #expect(torn.damaged)
        }
    }

    @Test("a record's bytes inside a value, laid bare by a write cut short, never pass for a record of the journal")
    func recordInsideAValue() {
        // What a program stores for another (a string from the network, say) may hold a whole record's bytes;
        // without the journal's salt their hash does not match.
        let forged = SuiteJournal.record(removingAll: true, [("admin", .bool(true))], salt: 0)
        let carrier = SuiteJournal.record(removingAll: false, [("note", .data(Data(forged)))], salt: 7)
        let next = SuiteJournal.record(removingAll: false, [("b", .integer(2))], salt: 7)
        for cut in 17..<carrier.count {
            let read = SuiteJournal.read((carrier.prefix(cut) + next)[...], salt: 7, allWritten: true)
            #expect(read.writes == [.set("b", .integer(2))], "cut at \(cut)")
        }
        // Whole, it is the value it was.
        #expect(SuiteJournal.read(carrier[...], salt: 7).writes == [.set("note", .data(Data(forged)))])
    }

    /// A record around `payload` with a right mark, length and hash (salt 7), whatever the payload holds.
    static func forged(_ payload: [UInt8]) -> [UInt8] {
        SuiteJournal.record(payload: payload, salt: 7)
    }

    @Test("flipped bytes, garbage and lengths or counts past the end are refused without allocating them")
    func hostileBytes() {
        let record = SuiteJournal.record(
            removingAll: true,
            [("key", .array([.data(Data([1, 2, 3])), .bool(true)]))],
            salt: 7
        )
        for index in record.indices {
            for flip: UInt8 in [0x01, 0x80, 0xFF] {
                var changed = record
                changed[index] ^= flip
                let read = SuiteJournal.read(changed[...], salt: 7, allWritten: true)
                // A changed byte never yields a different write: the record is refused, or (a changed mark or
                // length) left unread.
                #expect(read.writes.isEmpty || read.writes == SuiteJournal.read(record[...], salt: 7).writes)
            }
        }
        // A payload whose hash is right but which claims 4 billion writes, or a string of 4 GB.
        for claim: [UInt8] in [[0, 0xFF, 0xFF, 0xFF, 0xFF], [0, 1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]] {
            let forged = Self.forged(claim)
            let read = SuiteJournal.read(forged[...], salt: 7)
            #expect(read.writes.isEmpty && read.damaged)
        }
        // Nesting past the limit, forged with a right hash.
        var deep: [UInt8] = [0, 1, 0, 0, 0, 1, 0, 0, 0, 0x6B, 1]
        for _ in 0...PropertyListValue.maximumDepth { deep += [7, 1, 0, 0, 0] }
        deep += [1, 1]
        #expect(SuiteJournal.read(Self.forged(deep)[...], salt: 7).writes.isEmpty)
        // Random bytes, with whole records among them.
        var random = SeededGenerator(seed: 31)
        for _ in 0..<300 {
            var bytes = (0..<random.below(400)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            bytes.insert(contentsOf: record, at: random.below(bytes.count + 1))
            let read = SuiteJournal.read(bytes[...], salt: 7, allWritten: random.chance(50))
            #expect(read.consumed <= bytes.count)
            #expect(read.writes.count <= 2 * (bytes.count / 16 + 1))
        }
    }
}

/// The journal in a suite's lock file, with real files and processes, under attack; one test at a time, with the
/// other hostile conditions.
extension Hostile {
    @Suite("Journal in the lock file", .needsFileStore)
    struct JournalFileTests {
        /// A suite whose file is not rebuilt before the test flushes (only the journal has its writes), and its lock
        /// file.
        static func journalOnlySuite() throws -> (IsolatedSuite, URL) {
            let suite = IsolatedSuite(writePolicy: .coalesced(within: .seconds(3600)))
            let store = try #require(suite.adapter.store as? FileStore)
            store.folds.request(for: store, within: .seconds(3600))
            return (suite, suite.directory.url.appendingPathComponent(".\(suite.name).plist.lock"))
        }

        @Test("bytes another program appends to the journal are skipped and reported; the writes around them stay")
        func damagedJournal() throws {
            let (suite, lock) = try Self.journalOnlySuite()
            suite.adapter.username = "before"
            let handle = try FileHandle(forWritingTo: lock)
            try handle.seekToEnd()
            try handle.write(contentsOf: Data("another program's bytes".utf8))
            try handle.close()
            suite.adapter.launchCount = 3
            try suite.adapter.flush()
            let file = try suite.fileContents()
            #expect(file["username"] as? String == "before")
            #expect(file["launchCount"] as? Int == 3)
            #expect(suite.diagnostics.contains { $0.kind == .damagedFile && $0.message.contains("no whole record") })
            // The journal is empty again: the header alone.
            #expect(try FileManager.default.attributesOfItem(atPath: lock.path)[.size] as? Int == 16)
        }

        @Test("a lock file deleted while this process keeps it open: the next write goes to a new one, and lands")
        func lockFileDeletedUnderTheAppender() throws {
            let (suite, lock) = try Self.journalOnlySuite()
            suite.adapter.username = "first"
            try suite.adapter.flush()
            try FileManager.default.removeItem(at: lock)
            suite.adapter.username = "second"
            // Another process reads it from the new journal, before any rebuild of the file.
            let probe = try Helper.run(["probe-key", suite.name, "username"], configDirectory: suite.directory.url)
            #expect(probe.output.contains("value=second"), "\(probe.output)")
            try suite.adapter.flush()
            #expect(try suite.fileContents()["username"] as? String == "second")
        }

        @Test("while a write waits for a lock held too long, the next writes do not wait, and all land in order")
        func writesKeptWhileLocked() throws {
            let suite = IsolatedSuite()
            suite.adapter.launchCount = 1
            try suite.adapter.flush()
            let holder = try Helper.start(["hold-lock", suite.name], configDirectory: suite.directory.url)
            #expect(holder.waitForOutput(containing: "locked"))
            #expect(throws: DefaultsError.self) { try suite.adapter.set(2, for: \.launchCount) }
            // Kept in memory, in order; none waits for the lock again (each would take a second).
            let started = ContinuousClock.now
            for count in 3...12 { suite.adapter.launchCount = count }
            #expect(ContinuousClock.now - started < .seconds(5))
            #expect(suite.adapter.launchCount == 12)
            holder.kill()
            #expect(eventually(within: .seconds(20)) { (try? suite.fileContents())?["launchCount"] as? Int == 12 })
        }
    }
}
#endif
