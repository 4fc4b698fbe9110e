import Foundation
import Testing

/// SIGTERM, SIGINT and SIGHUP, as systemd, Docker, Kubernetes, Ctrl-C and a closed terminal send them, to real
/// child processes whose writes are pending (coalesced over an hour, so only a flush at the end writes them).
extension Hostile {
    @Suite("Hostile: signals", .needsFileStore)
    struct SignalTests {
        enum TerminationSignal: String, CaseIterable, Sendable {
            case sigterm = "SIGTERM"
            case sigint = "SIGINT"
            case sighup = "SIGHUP"

            var number: Int32 {
                switch self {
                case .sigterm: SIGTERM
                case .sigint: SIGINT
                case .sighup: SIGHUP
                }
            }
        }

        @Test(
            "a program that leaves the signal alone gets its pending writes flushed, and still ends by that signal",
            arguments: TerminationSignal.allCases
        )
        func defaultAction(signal: TerminationSignal) throws {
            let directory = TemporaryConfigDirectory()
            let child = try Helper.start(["write-pending", "s", "k", signal.rawValue], configDirectory: directory.url)
            try #require(child.waitForOutput(containing: "written"))
            kill(child.process.processIdentifier, signal.number)
            try #require(ended(child))
            #expect(child.process.terminationReason == .uncaughtSignal)
            #expect(child.process.terminationStatus == signal.number)
            #expect(try directory.contents(ofSuite: "s")["k"] as? String == signal.rawValue)
        }

        @Test(
            "a program handling SIGTERM itself (set before or after its first suite) keeps its handling; flushAll() saves",
            arguments: ["own-sigterm-before", "own-sigterm-after"]
        )
        func ownHandling(command: String) throws {
            let directory = TemporaryConfigDirectory()
            let child = try Helper.start([command, "s", "k", command], configDirectory: directory.url)
            try #require(child.waitForOutput(containing: "written"))
            if command == "own-sigterm-before" {
                // Opening the first suite left the program's handler in place (checked in the child).
                #expect(child.output.contains("sigterm-handling=kept"))
            }
            kill(child.process.processIdentifier, SIGTERM)
            try #require(ended(child))
            #expect(child.process.terminationReason == .exit)
            #expect(child.process.terminationStatus == 0)
            #expect(child.output.contains("handled\nflushed\n"))
            // The child ended with _exit, which skips the atexit flush.
            #expect(try directory.contents(ofSuite: "s")["k"] as? String == command)
        }

        @Test("a program that ignores SIGHUP, as under nohup, still ignores it")
        func ignoredSignalStaysIgnored() throws {
            let directory = TemporaryConfigDirectory()
            let child = try Helper.start(["write-pending-nohup", "s", "k", "v"], configDirectory: directory.url)
            try #require(child.waitForOutput(containing: "written"))
            let pid = child.process.processIdentifier
            #expect(signalMask("SigIgn", of: pid).contains(SIGHUP))
            #expect(signalMask("SigCgt", of: pid).contains(SIGTERM))
            // Had SIGHUP been caught, the child would end by it: it is delivered before SIGTERM.
            kill(pid, SIGHUP)
            kill(pid, SIGTERM)
            try #require(ended(child))
            #expect(child.process.terminationReason == .uncaughtSignal)
            #expect(child.process.terminationStatus == SIGTERM)
            #expect(try directory.contents(ofSuite: "s")["k"] as? String == "v")
        }

        @Test(
            "a second signal while the flush waits for another process's lock ends the program at once, by that signal",
            arguments: [(TerminationSignal.sigint, TerminationSignal.sigint), (.sigterm, .sighup)]
        )
        func secondSignal(first: TerminationSignal, second: TerminationSignal) throws {
            let directory = TemporaryConfigDirectory()
            let lock = try holdLock(ofSuite: "s", in: directory)
            defer { close(lock) }
            let child = try Helper.start(["write-pending", "s", "k", "v"], configDirectory: directory.url)
            try #require(child.waitForOutput(containing: "written"))
            let pid = child.process.processIdentifier
            kill(pid, first.number)
            // The handler ran (it gave both signals their default action back); the flush now waits for the lock.
            try #require(
                eventually {
                    let caught = signalMask("SigCgt", of: pid)
                    return !caught.contains(first.number) && !caught.contains(second.number)
                }
            )
            kill(pid, second.number)
            try #require(ended(child))
            #expect(child.process.terminationReason == .uncaughtSignal)
            #expect(child.process.terminationStatus == second.number)
            // Not by the flush's deadline, which says so before it ends the process.
            #expect(!child.output.contains("did not finish"))
        }

        @Test("a flush held up by another process's lock ends the program by the signal after its deadline, saying so")
        func deadline() throws {
            let directory = TemporaryConfigDirectory()
            let lock = try holdLock(ofSuite: "s", in: directory)
            defer { close(lock) }
            let child = try Helper.start(["write-pending", "s", "k", "v"], configDirectory: directory.url)
            try #require(child.waitForOutput(containing: "written"))
            kill(child.process.processIdentifier, SIGTERM)
            try #require(ended(child))
            #expect(child.process.terminationReason == .uncaughtSignal)
            #expect(child.process.terminationStatus == SIGTERM)
            // The flush's bound and the lock wait are both 5 s: whichever ends first says the writes are lost.
            let boundReached = child.output.contains(
                "TypedDefaults[s]: flushing before SIGTERM ends the process did not finish"
            )
            let lockWaitEnded = child.output.contains("held the lock file") && child.output.contains("lost at exit")
            #expect(boundReached || lockWaitEnded, "\(child.output)")
        }

        @Test("DefaultsShutdown.flushAll() flushes every suite past one that cannot be written, and throws its error")
        func flushAllKeepsGoing() throws {
            let directory = TemporaryConfigDirectory()
            let run = try Helper.run(["flush-all-failing", "p"], configDirectory: directory.url)
            #expect(run.status == 0)
            #expect(run.output.contains("result=writing suite"))
            #expect(run.output.contains("p.big.plist\" failed"))
            for suite in ["p.ok0", "p.ok1", "p.ok2"] {
                #expect(try directory.contents(ofSuite: suite)["k"] as? String == "ok")
            }
        }

        /// Waits until the child has ended (long past the flush's 5 s deadline), then for its status.
        private func ended(_ child: Helper.Running) -> Bool {
            guard eventually(within: .seconds(30), { !child.process.isRunning }) else { return false }
            child.process.waitUntilExit()
            return true
        }

        /// Takes the suite's file lock as another process writing it would, until the descriptor is closed.
        private func holdLock(ofSuite suite: String, in directory: TemporaryConfigDirectory) throws -> Int32 {
            let path = directory.url.appendingPathComponent(".\(suite).plist.lock").path
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            try #require(descriptor >= 0)
            try #require(flock(descriptor, LOCK_EX) == 0)
            return descriptor
        }

        /// The signals in one of a process's masks in /proc (SigCgt: caught, SigIgn: ignored).
        private func signalMask(_ field: String, of pid: pid_t) -> Set<Int32> {
            // portability: the suite needs the file store, which only Linux builds.
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
                let mask = UInt64(line.dropFirst(field.count + 1).trimmingCharacters(in: .whitespaces), radix: 16)
            else { return [] }
            return Set((1...64).filter { mask & (1 << UInt64($0 - 1)) != 0 })
        }
    }
}

/// A store of the program's own (one on a server) holding writes back when the program ends: where the platforms
/// differ at shutdown (Docs/Platforms.md). Exit and `DefaultsShutdown.flushAll()` flush it on both; a
/// default-action SIGTERM does on Linux, where the library catches it, and not on Apple platforms' storage path
/// (the build that stores through `UserDefaults`), which catches no signal.
extension Hostile {
    @Suite("Hostile: signals and stores of the program's own")
    struct OwnStoreSignalTests {
        @Test(
            "a store of the program's own keeps its pending writes at exit and through flushAll(); SIGTERM flushes it on Linux only",
            arguments: ["SIGTERM", "exit", "flushAll"]
        )
        func ownStore(ending: String) throws {
            let directory = TemporaryConfigDirectory()
            let file = directory.url.appendingPathComponent("server.json")
            let command = ["SIGTERM": "own-store-pending", "exit": "own-store-exit"][ending] ?? "own-store-flush-all"
            let child = try Helper.start([command, file.path, "k", ending], configDirectory: directory.url)
            try #require(child.waitForOutput(containing: "written"))
            if ending == "SIGTERM" { kill(child.process.processIdentifier, SIGTERM) }
            try #require(eventually(within: .seconds(30), { !child.process.isRunning }))
            child.process.waitUntilExit()
            let saved = (try? Data(contentsOf: file))
                .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: String] }
            if ending == "SIGTERM" {
                // The process still ends by the signal, flushed first or not.
                #expect(child.process.terminationReason == .uncaughtSignal)
                #expect(child.process.terminationStatus == SIGTERM)
                #expect(saved == (storesThroughFoundation ? nil : ["k": ending]))
            } else {
                #expect(child.process.terminationStatus == 0)
                #expect(saved == ["k": ending])
            }
            // The other store cannot be written: flushAll() goes past it, and throws its failure.
            if ending == "flushAll" {
                #expect(child.output.contains("result=") && !child.output.contains("result=flushed"))
            }
        }
    }
}
