import Foundation
import Testing

/// The edges of a process's life, with real child processes: `fork()` without `exec` while other threads use
/// the library, daemons, writes from `atexit` handlers, termination signals with their default action, and
/// a descriptor limit.
///
/// Not in the hostile-conditions namespace on purpose: ThreadSanitizer does not support a fork of a
/// multi-threaded process (its child dies when it starts a thread), so CI runs these without it.
@Suite("Process edges: fork, daemons, atexit, signals", .needsFileStore)
struct ProcessEdgeTests {
    @Test(
        "children forked without exec while threads write never hang; each child's write lands, and the parent's after",
        arguments: [2, 0]
    )
    func forkWhileWriting(threads: Int) throws {
        let directory = TemporaryConfigDirectory()
        let children = 40
        let run = try Helper.run(
            ["fork-while-writing", "s", "\(children)", "\(threads)"],
            configDirectory: directory.url
        )
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("hung=0"), "\(run.output)")
        #expect(!run.output.contains("status="), "children that did not exit cleanly: \(run.output)")
        let stored = try directory.contents(ofSuite: "s")
        let missing = (0..<children).filter { stored["child.\($0)"] as? Int != $0 }
        #expect(missing.isEmpty, "children whose write is not in the file: \(missing)")
        #expect(stored["parent"] as? String == "finished", "the parent's write after its children")
    }

    @Test("a child forked while its parent writes keeps no file lock: after the parent is killed, others write")
    func forkedChildHoldsNoLock() throws {
        let directory = TemporaryConfigDirectory()
        let parent = try Helper.start(["fork-keeping-child", "s"], configDirectory: directory.url)
        try #require(parent.waitForOutput(containing: "child="))
        let child = try #require(number(after: "child=", in: parent.output))
        // Foundation sees its child end only once every copy of a descriptor it made is closed, and the
        // grandchild has copies: it goes first.
        defer { endGrandchild(child, of: parent) }
        // The parent writes immediately in a loop, so it holds the lock file most of the time.
        usleep(200_000)
        kill(parent.process.processIdentifier, SIGKILL)
        try #require(eventually { !isAlive(parent.process.processIdentifier) })
        let started = ContinuousClock.now
        let other = try Helper.run(["write-now", "s", "other", "v"], configDirectory: directory.url)
        #expect(other.output.contains("written"), "\(other.output)")
        // The lock wait gives up after 5 s; a free lock is taken in milliseconds.
        #expect(ContinuousClock.now - started < .seconds(4))
        #expect(try directory.contents(ofSuite: "s")["other"] as? String == "v")
    }

    @Test("a daemon (forked after a write and flush, the parent gone) gets its later writes to the disk")
    func daemonWrites() throws {
        let directory = TemporaryConfigDirectory()
        let parent = try Helper.start(["daemon", "s", "k", "from the daemon", "100"], configDirectory: directory.url)
        try #require(parent.waitForOutput(containing: "written"))
        let daemon = try #require(number(after: "daemon=", in: parent.output))
        defer { endGrandchild(daemon, of: parent) }
        #expect(
            eventually(within: .seconds(10)) {
                (try? directory.contents(ofSuite: "s")["k"] as? String) == "from the daemon"
            }
        )
        #expect(try directory.contents(ofSuite: "s")["first"] as? String == "first")
    }

    @Test("a forked child's write survives SIGTERM, which ends the child at once")
    func forkedChildOnSigterm() throws {
        let directory = TemporaryConfigDirectory()
        let parent = try Helper.start(["forked-pending", "s", "k", "from the child"], configDirectory: directory.url)
        try #require(parent.waitForOutput(containing: "written"))
        try #require(parent.waitForOutput(containing: "child="))
        let child = try #require(number(after: "child=", in: parent.output))
        sendSignal(SIGTERM, to: child)
        #expect(parent.waitForOutput(containing: "child-", timeout: .seconds(30)))
        #expect(parent.output.contains("child-signal=\(SIGTERM)"), "\(parent.output)")
        #expect(try directory.valueReadByTool(ofSuite: "s", key: "k") == "from the child")
    }

    @Test(
        "a write from an atexit handler registered before the library's first use reaches the file",
        arguments: ["coalesced", "immediate"]
    )
    func atexitWrite(policy: String) throws {
        let directory = TemporaryConfigDirectory()
        let run = try Helper.run(["atexit-write", "s", "k", "at exit", policy], configDirectory: directory.url)
        #expect(run.status == 0, "\(run.errors)")
        let stored = try directory.contents(ofSuite: "s")
        #expect(stored["main"] as? String == "main")
        #expect(stored["k"] as? String == "at exit")
    }

    @Test("a write at exit that cannot reach the disk is reported, naming its key")
    func atexitWriteFailing() throws {
        let directory = TemporaryConfigDirectory()
        let run = try Helper.run(["atexit-write-failing", "s", "big"], configDirectory: directory.url)
        #expect(run.status == 0)
        let reports = (run.output + run.errors).split(separator: "\n").filter { $0.contains("diagnostic:") }
        #expect(
            reports.contains { $0.contains("key=big ") && $0.contains("the write of \"big\" is lost") },
            "\(run.output)\(run.errors)"
        )
    }

    @Test(
        "with default handling, no code of the program runs after a termination signal: it ends by the signal",
        arguments: ["sleep", "read", "poll"],
        [SIGTERM, SIGINT, SIGHUP]
    )
    func noCodeRunsAfterSignal(waiting: String, signal: Int32) throws {
        let directory = TemporaryConfigDirectory()
        let child = try Helper.start(["wait-after-write", waiting, "s", "k", "v"], configDirectory: directory.url)
        try #require(child.waitForOutput(containing: "written"))
        // Soon after the write, while the program waits: the signal interrupts the wait.
        usleep(20_000)
        sendSignal(signal, to: child.process.processIdentifier)
        try #require(eventually(within: .seconds(30)) { !child.process.isRunning })
        child.process.waitUntilExit()
        #expect(!child.output.contains("resumed"), "the program went on after the signal: \(child.output)")
        #expect(child.process.terminationReason == .uncaughtSignal)
        #expect(child.process.terminationStatus == signal)
        #expect(try directory.valueReadByTool(ofSuite: "s", key: "k") == "v")
    }

    @Test("a fault on one of the library's threads (in the program's diagnostics handler) reaches the crash handler")
    func faultOnLibraryThread() throws {
        let directory = TemporaryConfigDirectory()
        let child = try Helper.start(["crash-in-handler", "s"], configDirectory: directory.url)
        try #require(eventually(within: .seconds(30)) { !child.process.isRunning })
        child.process.waitUntilExit()
        #expect(child.output.contains("crash handler ran"), "\(child.output)")
        #expect(child.process.terminationReason == .exit)
        #expect(child.process.terminationStatus == 42)
    }

    @Test("with almost no descriptors to spare, a write fails with a clear error or lands; the process lives")
    func fewDescriptors() throws {
        for limit in 6...9 {
            let directory = TemporaryConfigDirectory()
            let run = try Helper.run(["few-descriptors", "s", "\(limit)"], configDirectory: directory.url)
            #expect(run.status == 0, "limit \(limit): \(run.output)\(run.errors)")
            let flushed = run.output.contains("flushed")
            #expect(flushed || run.output.contains("Too many open files"), "limit \(limit): \(run.output)")
            if flushed { #expect(try directory.contents(ofSuite: "s")["k"] as? String == "v") }
        }
    }

    /// The process ID on the output's line that starts with `prefix`.
    private func number(after prefix: String, in output: String) -> pid_t? {
        output.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { pid_t($0.dropFirst(prefix.count)) }
    }

    /// Whether `pid` is a process that has not ended (a zombie has).
    private func isAlive(_ pid: pid_t) -> Bool {
        #if os(Linux)
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let state = stat.split(separator: ")").last?.split(separator: " ").first
        else { return false }
        return state != "Z"
        #else
        return kill(pid, 0) == 0
        #endif
    }

    /// Kills a process the helper forked, then waits for the helper to end.
    private func endGrandchild(_ pid: pid_t, of helper: Helper.Running) {
        kill(pid, SIGKILL)
        _ = eventually { !isAlive(pid) }
        if isAlive(helper.process.processIdentifier) { kill(helper.process.processIdentifier, SIGKILL) }
        helper.process.waitUntilExit()
    }
}
