import Foundation
import Testing
import TypedDefaultsTestSupport

#if !TYPED_DEFAULTS_FOUNDATION_STORAGE  // needs the Linux file store; see FileStoreOnly.swift

@testable import TypedDefaults

/// The suite's storage, for the counters tests look at.
private func storage(_ suite: IsolatedSuite) throws -> FileStore {
    try #require(suite.adapter.store as? FileStore)
}

/// The hostile-conditions failures found by an audit, each reproduced against real files and processes.
extension Hostile {
    @Suite("Hostile: storage")
    struct HostileStorageTests {
        // MARK: Never a hang

        @Test("a FIFO at the backup or lock path is refused, never waited on")
        func fifosNeverBlock() throws {
            for name in ["backup", "lock"] {
                let suite = IsolatedSuite()
                let fifo = suite.directory.url.appendingPathComponent(".\(suite.name).plist.\(name)").path
                try #require(mkfifo(fifo, 0o600) == 0)
                let adapter = suite.adapter
                let outcome = Locked<String>("")
                #expect(
                    finishes {
                        do {
                            try adapter.set(3, for: \.launchCount)
                            try adapter.flush()
                            outcome.withLock { $0 = "written" }
                        } catch {
                            outcome.withLock { $0 = "\(error)" }
                        }
                    },
                    "a FIFO at the \(name) path hung the writer"
                )
                if name == "lock" {
                    #expect(outcome.withLock { $0 }.contains("FIFO"), "\(outcome.withLock { $0 })")
                } else {
                    // The backup is only a spare copy: the write itself lands.
                    #expect(outcome.withLock { $0 } == "written")
                    #expect(try suite.fileContents()["launchCount"] as? Int == 3)
                }
            }
        }

        @Test("user code may use the suite it runs in: modify bodies, diagnostics handlers")
        func reentrantUserCode() throws {
            let suite = IsolatedSuite()
            let adapter = suite.adapter
            let immediate = try suite.secondAdapter(keyStore: DefaultsKeys(), writePolicy: .immediate)
            let memory = DefaultsAdapter(store: InMemoryStore(), keyStore: DefaultsKeys())
            let foundation = DefaultsAdapter(defaults: IsolatedSuite().foundationDefaults(), keyStore: DefaultsKeys())
            #expect(
                finishes {
                    _ = try? adapter.modify(\.launchCount) { value in
                        value += 1
                        try? adapter.flush()
                        immediate.username = "inside"
                        _ = adapter.volume
                    }
                    _ = try? memory.modify(\.launchCount) { value in value = memory.launchCount + 1 }
                    _ = try? foundation.modify(\.launchCount) { value in value = foundation.launchCount + 1 }
                }
            )
            #expect(adapter.launchCount == 1)
            #expect(adapter.username == "inside")
            #expect(memory.launchCount == 1)
            #expect(foundation.launchCount == 1)
        }

        @Test("a diagnostics handler may write with the immediate policy while the library reports")
        func reentrantDiagnosticsHandler() throws {
            let suite = IsolatedSuite()
            // A damaged file makes the write path report while it works on the file.
            try Data("not a plist".utf8).write(to: suite.fileURL)
            let writer = try suite.secondAdapter(keyStore: DefaultsKeys(), writePolicy: .immediate)
            let name = suite.name
            let key = Key<Int>("fromHandler", default: 0)
            let handled = Locked(0)
            DefaultsDiagnostics.setHandler { diagnostic in
                DiagnosticsRecorder.record(diagnostic)
                guard diagnostic.suite == name else { return }
                handled.withLock { $0 += 1 }
                writer[key: key] = 7
            }
            defer { DefaultsDiagnostics.setHandler { DiagnosticsRecorder.record($0) } }
            #expect(finishes { writer.launchCount = 1 })
            #expect(handled.withLock { $0 } > 0)
            #expect(writer[key: key] == 7)
        }

        @Test("waiting for another process's file lock is bounded; the write is kept and lands later")
        func boundedLockWait() throws {
            let suite = IsolatedSuite()
            let holder = try Helper.start(["hold-lock", suite.name], configDirectory: suite.directory.url)
            #expect(holder.waitForOutput(containing: "locked"))
            let error = #expect(throws: DefaultsError.self) { try suite.adapter.set(5, for: \.launchCount) }
            #expect("\(String(describing: error))".contains("held the lock file"))
            #expect(suite.adapter.launchCount == 5, "the value is kept")
            holder.kill()
            #expect(eventually(within: .seconds(20)) { (try? suite.fileContents())?["launchCount"] as? Int == 5 })
        }

        @Test("a damaged file dated in the future, or claiming 100 GB, is a typed problem, not a hang or a crash")
        func hostileFileTimesAndSizes() throws {
            let future = IsolatedSuite()
            try Data("not a plist".utf8).write(to: future.fileURL)
            try FileManager.default.setAttributes(
                [.modificationDate: Date() + 7_200],
                ofItemAtPath: future.fileURL.path
            )
            let adapter = future.adapter
            #expect(finishes { _ = adapter.launchCount })
            #expect(throws: DefaultsError.self) { try adapter.checkHealth() }

            let huge = IsolatedSuite()
            try Data().write(to: huge.fileURL)
            try #require(truncate(huge.fileURL.path, 100 * 1024 * 1024 * 1024) == 0)
            #expect(huge.adapter.launchCount == 0)
            let error = #expect(throws: DefaultsError.self) { try huge.adapter.checkHealth() }
            #expect("\(String(describing: error))".contains("larger than"))
            #expect(throws: DefaultsError.self) { try huge.adapter.set(1, for: \.launchCount) }
        }

        @Test("a modify body that writes the key it modifies gets a typed error, not an endless loop")
        func modifyBodyWritingItsKey() throws {
            let suite = IsolatedSuite()
            let adapter = suite.adapter
            let outcome = Locked<DefaultsError?>(nil)
            #expect(
                finishes {
                    do {
                        try adapter.modify(\.launchCount) { value in
                            adapter.launchCount = value + 100
                            value += 1
                        }
                    } catch {
                        outcome.withLock { $0 = error as? DefaultsError }
                    }
                }
            )
            #expect("\(String(describing: outcome.withLock { $0 }))".contains("wrote the value it modifies"))
        }

        @Test("writes that differ only in bits Swift's == ignores still reach the file")
        func bitExactWrites() throws {
            let suite = IsolatedSuite()
            try suite.adapter.modifyStoredValues { $0["zero"] = .double(0) }
            try suite.adapter.modifyStoredValues { $0["zero"] = .double(-0.0) }
            let text = try String(contentsOf: suite.fileURL, encoding: .utf8)
            #expect(text.contains("<real>-0.0</real>"), "\(text)")
            suite.adapter.username = "caf\u{E9}"
            suite.adapter.username = "cafe\u{301}"
            let bytes = try Data(contentsOf: suite.fileURL)
            #expect(bytes.range(of: Data("cafe\u{301}".utf8)) != nil)
        }

        @Test("another TypedDefaults process's writes are never mistaken for an unlocked writer's")
        func lockedWritersAreNotReverts() throws {
            let suite = IsolatedSuite()
            let token = suite.adapter.observe(\.username) { _ in }
            suite.adapter.launchCount = 1
            suite.adapter.username = "mine"
            for _ in 0..<3 {
                try Helper.run(["write-and-set", suite.name], configDirectory: suite.directory.url).requireSuccess()
            }
            #expect(eventually { suite.adapter.username == "someone else" })
            usleep(200_000)
            #expect(!suite.diagnostics.contains { $0.kind == .revertedByUnlockedWriter })
            token.invalidate()
        }

        @Test("a value the defaults tool writes back over this process's write is never taken for an unlocked writer's")
        func writtenBackIsNotARevert() throws {
            let suite = IsolatedSuite()
            let token = suite.adapter.observe(\.username) { _ in }
            defer { token.invalidate() }
            for round in 0..<20 {
                // This process changes the key from "theirs", then the tool puts "theirs" back: a reader that took
                // the new file for one no TypedDefaults writer counted would report a revert.
                suite.adapter.username = "mine-\(round)"
                try suite.adapter.flush()
                try Helper.run(
                    ["write", suite.name, "username", "theirs"],
                    configDirectory: suite.directory.url,
                    program: Helper.tool
                )
                .requireSuccess()
                #expect(eventually { suite.adapter.username == "theirs" })
            }
            usleep(200_000)
            let alarms = suite.diagnostics.filter { $0.kind == .revertedByUnlockedWriter }
            #expect(alarms.isEmpty, "\(alarms.first.map { "\($0)" } ?? "")")
        }

        // MARK: Locks that hold

        /// A writer that locked a lock file made after another program deleted the old one may read the suite
        /// while a writer holding the old one is about to rename its write into place: each writer checks, just
        /// before its rename, that the file is still the version it read, and reads again if not.
        @Test(
            "modify stays exact while another program deletes and replaces the lock file",
            arguments: [1_000...20_000, 300...3_000]
        )
        func lockFileReplaced(pauses: ClosedRange<UInt32>) throws {
            let suite = IsolatedSuite()
            let lock = suite.directory.url.appendingPathComponent(".\(suite.name).plist.lock")
            let writers = try (0..<4)
                .map { _ in
                    try Helper.start(["increment-quietly", suite.name, "300"], configDirectory: suite.directory.url)
                }
            var replaced = 0
            while writers.contains(where: { $0.process.isRunning }) {
                if replaced % 2 == 0 {
                    unlink(lock.path)
                } else {
                    let fresh = lock.path + ".new"
                    _ = FileManager.default.createFile(atPath: fresh, contents: nil)
                    rename(fresh, lock.path)
                }
                replaced += 1
                usleep(UInt32.random(in: pauses))
            }
            #expect(replaced > 10)
            #expect(try suite.fileContents()["counter"] as? Int == 1_200)
        }

        // MARK: Bounded resources

        @Test("2,000 live suites under ulimit -n 1024 and 10,000 opened and dropped lose no write nor descriptors")
        func boundedDescriptors() throws {
            let directory = TemporaryConfigDirectory()
            let run = try Helper.run(["many-suites", "2000", "10000"], configDirectory: directory.url)
            #expect(run.status == 0, "\(run.output)\(run.errors)")
            #expect(!run.errors.contains("Too many open files"), "\(run.errors.prefix(500))")
            let counts = try #require(run.settings["descriptors"]).split(separator: ",").compactMap { Int($0) }
            #expect(counts.count == 2 && counts[1] <= counts[0] + 16, "descriptors before and after: \(counts)")
            for index in 0..<2000 {
                let data = try Data(contentsOf: directory.plist("live.\(index)"))
                let values = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
                #expect(values?["value"] as? Int == index, "live.\(index)")
            }
            for index in 0..<100 {
                let data = try Data(contentsOf: directory.plist("dropped.\(index)"))
                let values = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
                #expect(values?["value"] as? Int == 9_900 + index, "dropped.\(index)")
            }
        }

        @Test("a suite nobody uses any more is released")
        func unusedSuitesAreReleased() throws {
            let directory = TemporaryConfigDirectory()
            weak var released: FileStore?
            do {
                let adapter = try DefaultsAdapter(
                    suiteName: "released",
                    directory: directory.url,
                    keyStore: DefaultsKeys()
                )
                adapter.launchCount = 1
                try adapter.flush()
                released = adapter.store as? FileStore
                #expect(released != nil)
            }
            #expect(eventually { released == nil })
        }

        @Test("a damaged file on a full disk is never replaced, and leaves no empty copies behind")
        func damagedFileOnFullDisk() throws {
            let suite = IsolatedSuite()
            let damaged = Data(
                ("<?xml version=\"1.0\"?><plist><dict><key>counter</key>" + String(repeating: "x", count: 8192)).utf8
            )
            try damaged.write(to: suite.fileURL)
            let run = try Helper.run(["damaged-full-disk", suite.name, "4096"], configDirectory: suite.directory.url)
            #expect(run.settings["write"]?.contains("File too large") == true, "\(run.output)")
            let names = try FileManager.default.contentsOfDirectory(atPath: suite.directory.url.path)
            #expect(!names.contains { $0.contains(".damaged-") }, "\(names)")
            #expect(try Data(contentsOf: suite.fileURL) == damaged, "the damaged file is left as it is")
        }

        @Test("on a real, full, small file system: typed errors, the file intact, no empty copies, then recovery")
        func realFullFileSystem() throws {
            let mountPoint = TemporaryConfigDirectory()
            guard mount("tmpfs", mountPoint.url.path, "tmpfs", 0, "size=256k") == 0 else {
                print("skipped: cannot mount a small tmpfs here (\(String(cString: strerror(errno)))); needs root")
                return
            }
            defer { umount2(mountPoint.url.path, Int32(MNT_DETACH)) }
            let name = "full.\(UUID().uuidString)"
            let file = mountPoint.url.appendingPathComponent(name + ".plist")
            let damaged = Data("<?xml version=\"1.0\"?><plist><dict><key>counter</key>".utf8)
            try damaged.write(to: file)
            // Fill the file system to the last byte.
            let filler = mountPoint.url.appendingPathComponent("filler")
            let handle = try #require(
                FileHandle(forWritingAtPath: filler.path)
                    ?? {
                        _ = FileManager.default.createFile(atPath: filler.path, contents: nil)
                        return FileHandle(forWritingAtPath: filler.path)
                    }()
            )
            while (try? handle.write(contentsOf: Data(count: 4096))) != nil {}
            while (try? handle.write(contentsOf: Data(count: 1))) != nil {}
            try handle.close()

            let adapter = try DefaultsAdapter(
                suiteName: name,
                directory: mountPoint.url,
                keyStore: DefaultsKeys(),
                launchArguments: .ignored,
                writePolicy: .immediate
            )
            for _ in 0..<20 {
                _ = adapter.launchCount
                try? adapter.checkHealth()
                usleep(20_000)
            }
            let error = #expect(throws: DefaultsError.self) { try adapter.set(1, for: \.launchCount) }
            #expect("\(String(describing: error))".contains("No space left"), "\(String(describing: error))")
            let names = try FileManager.default.contentsOfDirectory(atPath: mountPoint.url.path)
            #expect(!names.contains { $0.contains(".damaged-") }, "\(names)")
            #expect(try Data(contentsOf: file) == damaged)

            // Space again: the kept write lands, and the damaged file was preserved first.
            try FileManager.default.removeItem(at: filler)
            try adapter.flush()
            let values = try PropertyListSerialization.propertyList(from: Data(contentsOf: file), format: nil)
            #expect((values as? [String: Any])?["launchCount"] as? Int == 1)
            let copies = try FileManager.default.contentsOfDirectory(atPath: mountPoint.url.path)
                .filter { $0.contains(".damaged-") }
            #expect(copies.count == 1)
            #expect(
                try copies.first.map { try Data(contentsOf: mountPoint.url.appendingPathComponent($0)) } == damaged
            )
        }

        // MARK: Observers that tell the truth

        @Test("observing before the first read reports nothing; updates starts with the value once")
        func noEventAtStartup() async throws {
            let suite = IsolatedSuite(fileContents: ["theme": "dark", "launchCount": 4])
            let changes = Recorder<DefaultsChange<Int>>()
            let token = suite.adapter.observe(\.launchCount) { changes.append($0) }
            try await Task.sleep(for: .milliseconds(300))
            // A later write is announced after anything the first read could have caused, on the same queue.
            suite.adapter.launchCount = 5
            #expect(await eventually { changes.all.last?.newValue == 5 })
            #expect(changes.all.map(\.oldValue) == [4], "\(changes.all.map(\.newValue))")
            token.invalidate()

            let other = IsolatedSuite(fileContents: ["theme": "dark"])
            var values: [Theme] = []
            let task = Task {
                for await theme in other.adapter.updates(\.theme) { values.append(theme) }
                return values
            }
            try await Task.sleep(for: .milliseconds(300))
            other.adapter.theme = .light
            try await Task.sleep(for: .milliseconds(300))
            task.cancel()
            #expect(await task.value == [.dark, .light])
        }

        @Test("a file rewritten in place slowly is never read as damaged, so no stale value is reported")
        func slowInPlaceRewrites() throws {
            let suite = IsolatedSuite()
            suite.adapter[key: Key<Int>("counter", default: 0)] = 0
            try suite.adapter.flush()
            let changes = Recorder<Int>()
            let token = suite.adapter.observe(Key<Int>("counter", default: -1)) { changes.append($0.newValue) }
            let rewriter = try Helper.start(
                ["slow-rewrite", suite.fileURL.path, "1", "20"],
                configDirectory: suite.directory.url
            )
            // Reads while the file is half written.
            while rewriter.process.isRunning { _ = suite.adapter[key: Key<Int>("counter", default: -1)] }
            #expect(eventually { changes.all.last == 20 })
            let seen = changes.all
            #expect(seen == seen.sorted() && !seen.contains(0), "values went back: \(seen)")
            #expect(!suite.diagnostics.contains { $0.kind == .damagedFile }, "\(suite.diagnostics)")
            token.invalidate()
        }

        @Test("the file watch matches the observers however their arrivals and departures interleave")
        func watchFollowsObservers() throws {
            let suite = IsolatedSuite()
            let adapter = suite.adapter
            let directory = suite.directory.url.path
            let fileName = suite.name + ".plist"
            let lasting = adapter.observe(\.launchCount) { _ in }
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                for _ in 0..<500 { adapter.observe(\.volume) { _ in }.invalidate() }
            }
            #expect(DirectoryWatcher.shared.isWatching(directory: directory, fileName: fileName))
            lasting.invalidate()
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                for _ in 0..<500 { adapter.observe(\.volume) { _ in }.invalidate() }
            }
            #expect(!DirectoryWatcher.shared.isWatching(directory: directory, fileName: fileName))
        }

        @Test("a process never reads back the file it just wrote, even while observing it")
        func noSelfReloads() throws {
            let suite = IsolatedSuite()
            let token = suite.adapter.observe(\.launchCount) { _ in }
            let storage = try storage(suite)
            suite.adapter.volume = 0.1
            let reads = storage.fileReadCount
            for count in 1...21 { suite.adapter.launchCount = count }
            usleep(300_000)
            #expect(storage.fileReadCount == reads, "re-read its own writes \(storage.fileReadCount - reads) times")
            token.invalidate()
        }

        // MARK: Values are values

        @Test("a decoded class is never shared between reads")
        func decodedClassesAreNotShared() throws {
            let suite = IsolatedSuite()
            let key = Key<Account?>("account")
            suite.adapter[key: key] = Account(name: "ann")
            let first = try #require(suite.adapter[key: key])
            first.name = "changed by a reader"
            let second = try #require(suite.adapter[key: key])
            #expect(first !== second)
            #expect(second.name == "ann")

            let list = Key<[Account]>("accounts", default: [])
            suite.adapter[key: list] = [Account(name: "bo")]
            let read = suite.adapter[key: list]
            read[0].name = "mutated without a write"
            #expect(suite.adapter[key: list][0].name == "bo")
        }

        @Test("@Default(.cached) never keeps a value whose write was refused")
        func cachedRefusedWrite() throws {
            let suite = IsolatedSuite()
            let key = Key<String>("name", default: "start")
            let property = Default(key: key, adapter: suite.adapter, options: [.cached])
            property.wrappedValue = "kept"
            // U+0001 cannot be stored in an XML property list: the write is refused.
            property.wrappedValue = "bad \u{1}"
            #expect(property.wrappedValue == "kept")
            #expect(suite.adapter[key: key] == "kept")
        }

        // MARK: Foreign unlocked writers

        @Test("keys reverted by a writer that takes no lock are reported")
        func unlockedWriterReverts() throws {
            let suite = IsolatedSuite()
            suite.adapter.username = "old"
            let old = try Data(contentsOf: suite.fileURL)
            suite.adapter.username = "new"
            // As Foundation's synchronize() does with a stale copy: the old bytes, written in place, no lock.
            let handle = try FileHandle(forWritingTo: suite.fileURL)
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: old)
            try handle.close()
            #expect(
                eventually {
                    _ = suite.adapter.username
                    return suite.diagnostics.contains {
                        $0.kind == .revertedByUnlockedWriter && $0.key == "username"
                    }
                }
            )
        }
    }
}

/// A `Codable` class: reads must not hand out one shared instance.
final class Account: Codable, @unchecked Sendable, DefaultsSerializable {
    // Mutated only by the test that owns the instance.
    var name: String
    init(name: String) { self.name = name }
}
#endif
