import Foundation
import Testing

/// SIGTERM, SIGINT and SIGHUP, as systemd, Docker, Kubernetes, Ctrl-C and a closed terminal send them, to real
/// child processes whose writes are held back (coalesced over an hour, so only the journal has them).
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
            "a program that leaves the signal alone ends by it at once, catching nothing, and its write survives",
            arguments: TerminationSignal.allCases
        )
        func defaultAction(signal: TerminationSignal) throws {
            let directory = TemporaryConfigDirectory()
            let child = try Helper.start(["write-pending", "s", "k", signal.rawValue], configDirectory: directory.url)
            try #require(child.waitForOutput(containing: "written"))
            #expect(
                signalMask("SigCgt", of: child.process.processIdentifier).isDisjoint(with: [SIGTERM, SIGINT, SIGHUP])
            )
            kill(child.process.processIdentifier, signal.number)
            try #require(ended(child))
            #expect(child.process.terminationReason == .uncaughtSignal)
            #expect(child.process.terminationStatus == signal.number)
            #expect(try directory.valueReadByTool(ofSuite: "s", key: "k") == signal.rawValue)
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
            // The child ended with _exit, which skips the atexit flush: flushAll() rebuilt the file.
            #expect(try directory.contents(ofSuite: "s")["k"] as? String == command)
        }

        @Test("a program that ignores SIGHUP, as under nohup, still ignores it")
        func ignoredSignalStaysIgnored() throws {
            let directory = TemporaryConfigDirectory()
            let child = try Helper.start(["write-pending-nohup", "s", "k", "v"], configDirectory: directory.url)
            try #require(child.waitForOutput(containing: "written"))
            let pid = child.process.processIdentifier
            #expect(signalMask("SigIgn", of: pid).contains(SIGHUP))
            #expect(signalMask("SigCgt", of: pid).isDisjoint(with: [SIGTERM, SIGINT, SIGHUP]))
            // Had SIGHUP not been ignored, the child would end by it: it is delivered before SIGTERM.
            kill(pid, SIGHUP)
            kill(pid, SIGTERM)
            try #require(ended(child))
            #expect(child.process.terminationReason == .uncaughtSignal)
            #expect(child.process.terminationStatus == SIGTERM)
            #expect(try directory.valueReadByTool(ofSuite: "s", key: "k") == "v")
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

        /// Waits until the child has ended, then for its status.
        private func ended(_ child: Helper.Running) -> Bool {
            guard eventually(within: .seconds(30), { !child.process.isRunning }) else { return false }
            child.process.waitUntilExit()
            return true
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

/// A store of the program's own (one on a server) holding writes back when the program ends. Exit and
/// `DefaultsShutdown.flushAll()` flush it; the library catches no signal, so a default-action SIGTERM ends the
/// program without flushing it, on every platform (Docs/CustomStores.md says what such a store gives up).
extension Hostile {
    @Suite("Hostile: signals and stores of the program's own")
    struct OwnStoreSignalTests {
        @Test(
            "a store of the program's own keeps its held-back writes at exit and through flushAll(), not through SIGTERM",
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
                // The process ends by the signal at once: nothing of the library's runs after it.
                #expect(child.process.terminationReason == .uncaughtSignal)
                #expect(child.process.terminationStatus == SIGTERM)
                #expect(saved == nil)
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
