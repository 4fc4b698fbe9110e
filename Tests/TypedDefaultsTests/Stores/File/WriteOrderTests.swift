import Foundation
import Testing

/// Order and survival of writes across real processes: the value that stays is the one set last, whatever each
/// program still had to do, and a `set` that returned survives its process however it ends.
///
/// The programs write under `.coalesced(within: .seconds(3600))`, so that nothing but the journal can have
/// their writes before they end. In the hostile-conditions namespace, so one test at a time: each waits on child
/// processes, and blocking several of the test runner's few threads at once would starve the asynchronous tests
/// running beside them.
extension Hostile {
    @Suite("Write order and survival across processes", .needsFileStore)
    struct WriteOrderTests {
        @Test("a defaults write after a program's write wins, and the program reads it back and hears it")
        func toolAfterProgram() throws {
            let directory = TemporaryConfigDirectory()
            let program = try Helper.start(["write-and-observe", "s", "theme", "A"], configDirectory: directory.url)
            try #require(program.waitForOutput(containing: "written"))
            let tool = try Helper.run(
                ["write", "s", "theme", "B"],
                configDirectory: directory.url,
                program: Helper.tool
            )
            #expect(tool.status == 0, "\(tool.errors)")
            #expect(try directory.contents(ofSuite: "s")["theme"] as? String == "B")
            #expect(program.waitForOutput(containing: "read=B"), "\(program.output)")
            #expect(program.waitForOutput(containing: "heard=B"), "\(program.output)")
            // The program ends by SIGTERM's default action: nothing of it may put A back.
            try end(program, by: SIGTERM)
            #expect(try directory.valueReadByTool(ofSuite: "s", key: "theme") == "B")
        }

        @Test(
            "of two programs that both hold their writes back, the later write wins however they end",
            arguments: [
                SIGTERM, SIGKILL,
            ]
        )
        func twoPrograms(ending signal: Int32) throws {
            let directory = TemporaryConfigDirectory()
            let first = try Helper.start(["write-and-observe", "s", "k", "first"], configDirectory: directory.url)
            try #require(first.waitForOutput(containing: "written"))
            let second = try Helper.start(["write-and-observe", "s", "k", "second"], configDirectory: directory.url)
            try #require(second.waitForOutput(containing: "written"))
            #expect(first.waitForOutput(containing: "read=second"), "\(first.output)")
            // The later writer ends first: the earlier one, ending after it, must not put its value back.
            try end(second, by: signal)
            try end(first, by: signal)
            #expect(try directory.valueReadByTool(ofSuite: "s", key: "k") == "second")
        }

        @Test("a set that returned survives SIGKILL; the next program to open the suite brings the file up to date")
        func survivesKill() throws {
            let directory = TemporaryConfigDirectory()
            let program = try Helper.start(["write-pending", "s", "k", "v"], configDirectory: directory.url)
            try #require(program.waitForOutput(containing: "written"))
            try end(program, by: SIGKILL)
            // Only the journal has it: the file was never written.
            #expect(!FileManager.default.fileExists(atPath: directory.plist("s").path))
            let opener = try Helper.start(["open-suite", "s", "k"], configDirectory: directory.url)
            defer { try? end(opener, by: SIGKILL) }
            #expect(opener.waitForOutput(containing: "value=v"), "\(opener.output)")
            // Without ending: opening the suite is enough.
            #expect(eventually { (try? directory.contents(ofSuite: "s")["k"] as? String) == "v" })
        }

        @Test("after SIGKILL, any defaults command brings the file up to date")
        func toolFoldsJournal() throws {
            let directory = TemporaryConfigDirectory()
            let program = try Helper.start(["write-pending", "s", "k", "v"], configDirectory: directory.url)
            try #require(program.waitForOutput(containing: "written"))
            try end(program, by: SIGKILL)
            let tool = try Helper.run(["read", "s", "k"], configDirectory: directory.url, program: Helper.tool)
            #expect(tool.status == 0, "\(tool.errors)")
            #expect(tool.output == "v\n")
            #expect(try directory.contents(ofSuite: "s")["k"] as? String == "v")
        }

        @Test("a program's writes reach the file within 100 ms while it runs, whatever its write policy")
        func fileFollowsWithinTheInterval() throws {
            let directory = TemporaryConfigDirectory()
            let program = try Helper.start(["write-and-observe", "s", "k", "v"], configDirectory: directory.url)
            defer { try? end(program, by: SIGKILL) }
            try #require(program.waitForOutput(containing: "written"))
            // Generous for a loaded machine; what matters is that it happens without a flush, an exit or a signal.
            #expect(eventually(within: .seconds(5)) { (try? directory.contents(ofSuite: "s")["k"] as? String) == "v" })
        }

        @Test("no signal is caught after a write: SIGHUP, SIGINT and SIGTERM keep their default action")
        func noSignalCaught() throws {
            let directory = TemporaryConfigDirectory()
            let program = try Helper.start(["write-and-observe", "s", "k", "v"], configDirectory: directory.url)
            defer { try? end(program, by: SIGKILL) }
            try #require(program.waitForOutput(containing: "written"))
            let caught = Self.caughtSignals(of: program.process.processIdentifier)
            #expect(caught.isDisjoint(with: [SIGHUP, SIGINT, SIGTERM]), "caught: \(caught.sorted())")
        }

        /// Sends `signal` and waits for the program to end by it.
        private func end(_ program: Helper.Running, by signal: Int32) throws {
            sendSignal(signal, to: program.process.processIdentifier)
            try #require(eventually(within: .seconds(30)) { !program.process.isRunning })
            program.process.waitUntilExit()
            #expect(program.process.terminationReason == .uncaughtSignal)
            #expect(program.process.terminationStatus == signal)
        }

        /// The signals a process catches, from /proc.
        static func caughtSignals(of pid: pid_t) -> Set<Int32> {
            // portability: the suite needs the file store, which only Linux builds.
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
                let mask = UInt64(line.dropFirst(7).trimmingCharacters(in: .whitespaces), radix: 16)
            else { return [] }
            return Set((1...64).filter { mask & (1 << UInt64($0 - 1)) != 0 })
        }
    }
}
