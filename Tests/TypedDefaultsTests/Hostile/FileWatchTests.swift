import Foundation
import Testing

@testable import TypedDefaults

#if !TYPED_DEFAULTS_FOUNDATION_STORAGE  // needs the Linux file store; see FileStoreOnly.swift

/// Counts a callback's calls, from any thread.
private final class CallCounter: Sendable {
    private let calls = Locked(0)
    func record() { calls.withLock { $0 += 1 } }
    var count: Int { calls.withLock { $0 } }
}

/// The watches the kernel holds on `watcher`'s inotify descriptor, read from `/proc/self/fdinfo`.
private func kernelWatchCount(_ watcher: DirectoryWatcher) -> Int {
    let descriptor = watcher.inotifyDescriptor
    guard descriptor >= 0, let info = try? String(contentsOfFile: "/proc/self/fdinfo/\(descriptor)", encoding: .utf8)
    else { return 0 }
    return info.split(separator: "\n").filter { $0.hasPrefix("inotify wd:") }.count
}

/// Rewrites `name` in `directory` in place, as Foundation does.
private func touch(_ directory: String, _ name: String) {
    let descriptor = open(directory + "/" + name, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    if descriptor >= 0 { close(descriptor) }
}

extension Hostile {
    @Suite("Hostile: file watch")
    struct FileWatchTests {
        @Test("an observer keeps hearing another process's writes after its directory is removed and made again")
        func directoryRecreated() async throws {
            // Nothing is written in this process: its delayed backup copy would make the directory again.
            let suite = IsolatedSuite()
            let path = suite.directory.url.path
            let changes = Recorder<String?>()
            let token = suite.adapter.observe(\.username) { changes.append($0.newValue) }
            defer { token.invalidate() }
            #expect(DirectoryWatcher.shared.isArmed(directory: path))

            try FileManager.default.removeItem(at: suite.directory.url)
            // Noticed, and polled while the path is missing, until the directory is made again.
            #expect(await eventually { !DirectoryWatcher.shared.isArmed(directory: path) })
            try FileManager.default.createDirectory(at: suite.directory.url, withIntermediateDirectories: false)
            let first = try Helper.run(
                ["exit-call", suite.name, "username", "recreated"],
                configDirectory: suite.directory.url
            )
            #expect(first.status == 0)
            #expect(await eventually { changes.all.last == "recreated" })

            // Watched again by inotify, not polled forever: the next write is heard too.
            #expect(await eventually { DirectoryWatcher.shared.isArmed(directory: path) })
            let second = try Helper.run(
                ["exit-call", suite.name, "username", "again"],
                configDirectory: suite.directory.url
            )
            #expect(second.status == 0)
            #expect(await eventually { changes.all.last == "again" })
        }

        @Test("after `mv` swaps the directory for another, the new directory's value and later writes are reported")
        func directorySwapped() async throws {
            // Nothing is written in this process: its delayed backup copy would make the directory again.
            let suite = IsolatedSuite()
            let path = suite.directory.url.path
            let changes = Recorder<String?>()
            let token = suite.adapter.observe(\.username) { changes.append($0.newValue) }
            defer { token.invalidate() }
            #expect(DirectoryWatcher.shared.isArmed(directory: path))

            // Another process leaves the suite with another value in a directory of its own.
            let replacement = TemporaryConfigDirectory()
            let seeded = try Helper.run(
                ["exit-call", suite.name, "username", "from-replacement"],
                configDirectory: replacement.url
            )
            #expect(seeded.status == 0)
            // The watched directory is renamed away (over an empty directory, which goes), the other takes its place.
            let movedAway = TemporaryConfigDirectory()
            #expect(rename(path, movedAway.url.path) == 0)
            #expect(rename(replacement.url.path, path) == 0)
            #expect(await eventually { changes.all.last == "from-replacement" })

            #expect(await eventually { DirectoryWatcher.shared.isArmed(directory: path) })
            let later = try Helper.run(
                ["exit-call", suite.name, "username", "after-swap"],
                configDirectory: suite.directory.url
            )
            #expect(later.status == 0)
            #expect(await eventually { changes.all.last == "after-swap" })
        }

        @Test(
            "with no descriptor left for inotify, another process's writes still arrive and a diagnostic says how to fix it",
            arguments: [
                // Too few for inotify and libdispatch's first source: the directory stays polled.
                2,
                // Enough: a poll may arm the watch again; either way the write arrives.
                16,
            ]
        )
        func descriptorsExhausted(spare: Int) async throws {
            let suite = IsolatedSuite()
            suite.adapter.launchCount = 1
            let child = try Helper.start(
                ["observe-starved", suite.name, "\(spare)"],
                configDirectory: suite.directory.url
            )
            #expect(await eventually { child.output.contains("observing") })
            #expect(await eventually { child.output.contains("diagnostic=fileWatchUnavailable") })
            suite.adapter.launchCount = 5
            #expect(await eventually { child.output.contains("launchCount=5") }, "\(child.output)")

            let output = child.output
            if spare == 2 { #expect(output.contains("launchCount=5 inotify=false"), "delivered by polling") }
            let diagnostics = output.split(separator: "\n").filter { $0.hasPrefix("diagnostic=") }
            #expect(diagnostics.count == 1, "once per process, not once per poll")
            let message = diagnostics.first.map(String.init) ?? ""
            #expect(message.contains("polling every \(DirectoryWatcher.pollingInterval) ms"))
            #expect(message.contains("fs.inotify.max_user_instances"))
            #expect(message.contains("fs.inotify.max_user_watches"))
        }

        @Test("a directory that does not exist yet is polled, with no diagnostic, then watched once it appears")
        func missingDirectory() async throws {
            DiagnosticsRecorder.install()
            let watcher = DirectoryWatcher()
            let root = TemporaryConfigDirectory()
            let path = root.url.appendingPathComponent("later").path
            let suite = "missing.\(UUID().uuidString)"
            let calls = CallCounter()
            let registration = try #require(
                watcher.watch(directory: path, fileName: suite + ".plist") { calls.record() }
            )
            #expect(watcher.isPolling)
            #expect(await eventually { calls.count >= 2 }, "each poll reports the file as possibly changed")

            #expect(mkdir(path, 0o755) == 0)
            #expect(await eventually { watcher.isArmed(directory: path) && !watcher.isPolling })
            watcher.queue.sync {}  // the last poll's callbacks are done
            let polled = calls.count
            touch(path, suite + ".plist")
            #expect(await eventually { calls.count > polled }, "heard through inotify, as polling has stopped")
            #expect(DiagnosticsRecorder.diagnostics(forSuite: suite).isEmpty, "a missing directory is no limit")

            watcher.cancel(registration)
            #expect(!watcher.isWatching(directory: path, fileName: suite + ".plist"))
            #expect(kernelWatchCount(watcher) == 0)

            // Cancelling the last registration of a polled directory stops the polling.
            let other = try #require(watcher.watch(directory: path + "-never", fileName: "x.plist") {})
            #expect(watcher.isPolling)
            watcher.cancel(other)
            #expect(!watcher.isPolling)
        }

        @Test("cancelling while events arrive leaves no watch behind")
        func cancelDuringEvents() async throws {
            let watcher = DirectoryWatcher()
            let directory = TemporaryConfigDirectory()
            let path = directory.url.path
            let calls = CallCounter()
            // One registration stays while the others come and go, so callbacks run throughout.
            let steady = try #require(watcher.watch(directory: path, fileName: "s.plist") { calls.record() })
            let writing = Locked(true)
            let writer = Thread {
                while writing.withLock({ $0 }) { touch(path, "s.plist") }
            }
            writer.start()
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                for _ in 0..<100 {
                    if let registration = watcher.watch(
                        directory: path,
                        fileName: "s.plist",
                        onChange: { calls.record() }
                    ) {
                        watcher.cancel(registration)
                    }
                }
            }
            #expect(await eventually { calls.count > 0 })
            watcher.cancel(steady)
            writing.withLock { $0 = false }

            #expect(!watcher.isWatching(directory: path, fileName: "s.plist"))
            #expect(!watcher.isArmed(directory: path))
            #expect(!watcher.isPolling)
            #expect(kernelWatchCount(watcher) == 0)
        }

        @Test("two paths to one directory share the kernel's watch; cancelling one keeps the other hearing")
        func twoPathsOneDirectory() async throws {
            let watcher = DirectoryWatcher()
            let directory = TemporaryConfigDirectory()
            let path = directory.url.path
            let link = TemporaryConfigDirectory().url.path + "-link"
            #expect(symlink(path, link) == 0)
            defer { unlink(link) }
            let direct = CallCounter()
            let linked = CallCounter()
            let kept = try #require(watcher.watch(directory: path, fileName: "a.plist") { direct.record() })
            let dropped = try #require(watcher.watch(directory: link, fileName: "b.plist") { linked.record() })
            #expect(kernelWatchCount(watcher) == 1)

            watcher.queue.sync {
                // With events held up, so a lost watch cannot be noticed and added again before it is counted.
                watcher.cancel(dropped)
                #expect(kernelWatchCount(watcher) == 1, "the other path still uses the watch")
            }
            touch(path, "a.plist")
            #expect(await eventually { direct.count > 0 })
            watcher.cancel(kept)
            #expect(kernelWatchCount(watcher) == 0)
        }

        @Test("after lost events (queue overflow) every file is reported and a replaced directory is watched again")
        func overflow() async throws {
            let watcher = DirectoryWatcher()
            let directory = TemporaryConfigDirectory()
            let path = directory.url.path
            let calls = CallCounter()
            let registration = try #require(watcher.watch(directory: path, fileName: "s.plist") { calls.record() })
            defer { watcher.cancel(registration) }
            let queued = try String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8)
            let limit = Int(queued.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 16384

            watcher.queue.sync {
                // More events than the kernel queues while nobody reads them (alternating names, as identical
                // consecutive events are merged), then the directory is replaced: that news is lost.
                for index in 0...limit { touch(path, index.isMultiple(of: 2) ? "a" : "b") }
                try? FileManager.default.removeItem(atPath: path)
                mkdir(path, 0o755)
            }
            #expect(await eventually { calls.count > 0 }, "an overflow reports every file")
            #expect(await eventually { watcher.isArmed(directory: path) && !watcher.isPolling })
            watcher.queue.sync {}
            let before = calls.count
            touch(path, "s.plist")
            #expect(await eventually { calls.count > before }, "the new directory is watched")
        }
    }
}
#endif
