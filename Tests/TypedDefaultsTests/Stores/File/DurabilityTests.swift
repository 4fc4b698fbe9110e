import Foundation
import Testing

#if !TYPED_DEFAULTS_FOUNDATION_STORAGE  // needs the Linux file store; see FileStoreOnly.swift

@testable import TypedDefaults

/// Nothing lost at exit, under concurrent processes, on crashes or damaged files: real child processes, real
/// SIGKILL, real damaged files, each in a temporary config directory of its own.
@Suite("Durability")
struct DurabilityTests {
    @Test("a coalesced write reaches the disk by itself at a normal exit, returning from main or calling exit()")
    func exitFlush() throws {
        let directory = TemporaryConfigDirectory()
        let run = try Helper.run(["exit-call", "s", "k", "from-exit-call"], configDirectory: directory.url)
        #expect(run.status == 0)
        #expect(try directory.contents(ofSuite: "s")["k"] as? String == "from-exit-call")
        // Returning from main: `increment-standard` only writes, never flushes.
        _ = try Helper.run(["increment-standard"], configDirectory: directory.url)
        #expect(try directory.contents(ofSuite: "TypedDefaultsTestHelper")["launchCount"] as? Int == 1)
    }

    @Test("a coalesced write survives SIGKILL once the documented delay has passed")
    func killAfterDelay() throws {
        let directory = TemporaryConfigDirectory()
        let writer = try Helper.start(["write-and-wait", "s", "k", "v"], configDirectory: directory.url)
        #expect(writer.waitForOutput(containing: "written"))
        // The default policy writes within 100 ms; wait well past it before killing.
        usleep(600_000)
        writer.kill()
        #expect(try directory.contents(ofSuite: "s")["k"] as? String == "v")
    }

    @Test("a coalesced write reaches the disk within the delay without any call, in this process")
    func coalescedWriteLandsByItself() throws {
        let suite = IsolatedSuite(writePolicy: .coalesced)
        suite.adapter.launchCount = 42
        #expect(eventually { (try? suite.fileContents())?["launchCount"] as? Int == 42 })
    }

    @Test("a burst of 1,000 coalesced writes causes a handful of file writes; flush() makes them durable")
    func burstCoalesces() async throws {
        let suite = IsolatedSuite(writePolicy: .coalesced(within: .seconds(5)))
        let storage = try #require(suite.adapter.store as? FileStore)
        for index in 1...1000 { suite.adapter.launchCount = index }
        try await suite.adapter.flush()
        #expect(try suite.fileContents()["launchCount"] as? Int == 1000)
        #expect(storage.fileWriteCount <= 2)
    }

    @Test("4 processes writing distinct keys of one suite lose none of them")
    func concurrentWriters() throws {
        let directory = TemporaryConfigDirectory()
        let writers = try (0..<4)
            .map { index in
                try Helper.start(["write-distinct", "shared", "writer\(index)", "200"], configDirectory: directory.url)
            }
        for writer in writers { writer.process.waitUntilExit() }
        let contents = try directory.contents(ofSuite: "shared")
        for writer in 0..<4 {
            for slot in 0..<25 {
                #expect(contents["writer\(writer).\(slot)"] as? Int == 175 + slot, "writer\(writer).\(slot)")
            }
        }
        #expect(contents.count == 100)
    }

    @Test("4 processes × 500 modify increments end at exactly 2,000")
    func atomicModifyAcrossProcesses() throws {
        let directory = TemporaryConfigDirectory()
        let writers = try (0..<4)
            .map { _ in
                try Helper.start(["increment", "counter", "500"], configDirectory: directory.url)
            }
        for writer in writers {
            writer.process.waitUntilExit()
            #expect(writer.process.terminationStatus == 0)
        }
        #expect(try directory.contents(ofSuite: "counter")["counter"] as? Int == 2000)
    }

    @Test("modify is exact across threads too")
    func atomicModifyAcrossThreads() async throws {
        let suite = IsolatedSuite(writePolicy: .coalesced)
        let defaults = suite.adapter
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { for _ in 0..<50 { _ = try? defaults.modify(\.launchCount) { $0 += 1 } } }
            }
        }
        #expect(defaults.launchCount == 200)
        #expect(try suite.fileContents()["launchCount"] as? Int == 200)
    }

    @Test("50 SIGKILLs at random moments of a write storm never lose a durable write or leave a broken file")
    func killDuringWriteStorm() throws {
        let directory = TemporaryConfigDirectory()
        var generator = SystemRandomNumberGenerator()
        var lastDurable = 0
        for round in 1...50 {
            let storm = try Helper.start(["storm", "storm"], configDirectory: directory.url)
            #expect(storm.waitForOutput(containing: "durable"), "round \(round) never wrote")
            usleep(UInt32.random(in: 0...40_000, using: &generator))
            storm.kill()
            let printed = storm.output.split(separator: "\n").compactMap { Int($0.split(separator: " ").last ?? "") }
            lastDurable = max(lastDurable, printed.max() ?? 0)

            // Every restart finds a file that parses and holds at least the last durable state.
            let data = try Data(contentsOf: directory.plist("storm"))
            let values = try SuiteFile.parse(data).get().values
            let counter = try #require(values["counter"].flatMap { IntegerBridge<Int>().deserialize($0) })
            #expect(counter >= lastDurable, "round \(round): \(counter) < durable \(lastDurable)")
            lastDurable = counter
        }
        // Temporary files of killed writers are swept by the next writer.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
            .filter { $0.contains(".tmp-") }
        #expect(leftovers.count <= 1, "\(leftovers)")
    }

    @Test("a file torn at any byte by another writer is recovered from the last good copy and preserved")
    func tornFileRecovers() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let suite = IsolatedSuite()
            suite.adapter.username = "ann"
            suite.adapter.launchCount = 7
            try suite.adapter.flush()
            let original = try Data(contentsOf: suite.fileURL)
            // The backup copy follows each write in the background, within about 50 ms.
            let backup = suite.directory.url.appendingPathComponent(".\(suite.name).plist.backup")
            #expect(eventually { (try? Data(contentsOf: backup)) == original })
            // Any prefix short of the closing tag (the last byte is a newline after it).
            let cut = Int.random(in: 0..<(original.count - 1), using: &generator)
            // Foundation rewrites in place; a crash in the middle leaves a prefix of the file.
            try original.prefix(cut).write(to: suite.fileURL)

            // A new process finds the torn file and reads the last good copy.
            let probe = try Helper.run(["probe-key", suite.name, "username"], configDirectory: suite.directory.url)
            #expect(probe.settings["value"] == "ann", "cut at \(cut) of \(original.count)")

            // So does this process, once it looks at the file again (checkHealth looks at once).
            let reader = try suite.secondAdapter(keyStore: DefaultsKeys())
            let error = #expect(throws: DefaultsError.self) { try reader.checkHealth() }
            guard case .damagedFile(_, let preservedAt, _)? = error else {
                Issue.record("expected damagedFile, got \(String(describing: error))")
                continue
            }
            #expect(reader.launchCount == 7, "cut at \(cut) of \(original.count)")
            #expect(reader.username == "ann")
            #expect(try Data(contentsOf: URL(fileURLWithPath: preservedAt)) == original.prefix(cut))

            // The next write replaces the torn file, keeping the recovered values.
            reader.volume = 0.25
            let file = try suite.fileContents()
            #expect(file["launchCount"] as? Int == 7)
            #expect(file["volume"] as? Double == 0.25)
            #expect(throws: Never.self) { try reader.checkHealth() }
        }
    }

    @Test(
        "a damaged file is preserved byte for byte, reads fall back to defaults, and an API says so",
        arguments: [
            ("garbage", Data("this is not a property list {{{".utf8)),
            ("empty", Data()),
            ("truncated XML", Data("<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>launchCount".utf8)),
            ("JSON", Data(#"{"launchCount": 3}"#.utf8)),
            ("array root", try! PropertyListSerialization.data(fromPropertyList: [1, 2], format: .xml, options: 0)),
        ]
    )
    func damagedFiles(kind: String, content: Data) throws {
        let suite = IsolatedSuite()
        try content.write(to: suite.fileURL)
        #expect(suite.adapter.launchCount == 0, "\(kind)")
        let error = #expect(throws: DefaultsError.self) { try suite.adapter.checkHealth() }
        guard case .damagedFile(let path, let preservedAt, let reason)? = error else {
            Issue.record("\(kind): expected damagedFile, got \(String(describing: error))")
            return
        }
        #expect(path == suite.fileURL.path)
        #expect(!reason.isEmpty)
        #expect(preservedAt.hasPrefix(suite.fileURL.path + ".damaged-"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: preservedAt)) == content, "\(kind)")
        #expect(suite.diagnostics.contains { $0.kind == .damagedFile && $0.message.contains(preservedAt) })

        suite.adapter.launchCount = 1
        #expect(try suite.fileContents()["launchCount"] as? Int == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: preservedAt)) == content, "the copy outlives the write")
        let copies = try FileManager.default.contentsOfDirectory(atPath: suite.directory.url.path)
            .filter { $0.contains(".damaged-") }
        #expect(copies.count == 1, "preserved once, not on every read: \(copies)")
    }

    @Test("a binary property list is read, and stays binary through the next write")
    func binaryPlistIsFine() throws {
        let suite = IsolatedSuite()
        try PropertyListSerialization.data(fromPropertyList: ["launchCount": 5], format: .binary, options: 0)
            .write(to: suite.fileURL)
        #expect(suite.adapter.launchCount == 5)
        #expect(throws: Never.self) { try suite.adapter.checkHealth() }
        suite.adapter.launchCount += 1
        #expect(try Data(contentsOf: suite.fileURL).starts(with: Array("bplist00".utf8)))
        #expect(try suite.fileContents()["launchCount"] as? Int == 6)
    }

    @Test("writes are never dropped because they equal a stale cached value (Foundation's trap)")
    func staleCacheWritesLand() throws {
        let suite = IsolatedSuite()
        suite.adapter.launchCount = 1
        suite.adapter.username = nil
        // Another process changes both, right after this process read them.
        #expect(suite.adapter.launchCount == 1)
        try Helper.run(["write-and-set", suite.name], configDirectory: suite.directory.url).requireSuccess()
        suite.adapter.launchCount = 1
        suite.adapter.username = nil
        let file = try suite.fileContents()
        #expect(file["launchCount"] as? Int == 1)
        #expect(file["username"] == nil)
    }

    @Test("another process's flushed write becomes visible to reads by itself")
    func freshReads() throws {
        let suite = IsolatedSuite()
        suite.adapter.username = "before"
        #expect(suite.adapter.username == "before")
        let run = try Helper.run(["exit-call", suite.name, "username", "after"], configDirectory: suite.directory.url)
        #expect(run.status == 0)
        #expect(eventually { suite.adapter.username == "after" })
    }

    @Test("a write that cannot reach the disk is kept, reported, and retried until it lands")
    func failedWritesAreRetried() throws {
        let suite = IsolatedSuite(writePolicy: .coalesced(within: .milliseconds(10)))
        // A directory where the file should be makes every write fail.
        try FileManager.default.createDirectory(at: suite.fileURL, withIntermediateDirectories: false)
        suite.adapter.launchCount = 9
        #expect(throws: DefaultsError.self) { try suite.adapter.flush() }
        #expect(suite.adapter.launchCount == 9, "the value is kept")
        #expect(
            eventually { suite.diagnostics.contains { $0.kind == .writeFailed && $0.message.contains("trying again") } }
        )

        // Once the obstacle is gone, the kept write lands with no further call.
        try FileManager.default.removeItem(at: suite.fileURL)
        #expect(eventually { (try? suite.fileContents())?["launchCount"] as? Int == 9 })
    }

    @Test("a write that cannot reach the disk is reported with a typed error and leaves the file intact")
    func fullDisk() throws {
        let suite = IsolatedSuite()
        suite.adapter.username = "kept"
        let before = try Data(contentsOf: suite.fileURL)
        let run = try Helper.run(["write-limited", suite.name, "4096"], configDirectory: suite.directory.url)
        // The journal takes the write first: a short append is what the file-size limit leaves.
        let result = run.settings["result"] ?? ""
        #expect(result.contains("File too large") || result.contains("file size limit"), "\(run.output)")
        #expect(try Data(contentsOf: suite.fileURL) == before)
    }
}

extension Helper.Result {
    func requireSuccess() throws {
        try #require(status == 0, "helper failed: \(output)\(errors)")
    }
}
#endif
