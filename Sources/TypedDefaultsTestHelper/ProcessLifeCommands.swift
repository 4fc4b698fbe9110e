// Commands for the tests of a process's edges: fork without exec, daemons, atexit, termination signals, and
// descriptor limits. Linux only: the file store, and the C library's spellings, are Glibc's.
//
//     fork-while-writing <suite> <children> <threads>
//                         with <threads> threads writing (0: only the library's own), fork <children> children
//                         one after another; each sets `child.<n>` and exits; then set `parent` and flush;
//                         prints `hung=<n>` for children still running after 10 s (killed then), and each
//                         child's exit status
//     fork-keeping-child <suite>
//                         a thread writes immediately in a loop; fork a child that sleeps forever, print
//                         `child=<pid>`, and go on writing until killed
//     daemon <suite> <key> <value> <delay-ms>
//                         write `first` and flush, fork, the parent exits; the child (the daemon) starts a new
//                         session, prints `daemon=<pid>`, writes <key> (coalesced within <delay-ms>), prints
//                         `written`, and sleeps until a signal ends it
//     forked-pending <suite> <key> <value>
//                         write `first` and flush, fork; the child writes <key> (coalesced over an hour),
//                         prints `written` and sleeps; the parent prints the child's pid, waits for it, and
//                         prints how it ended (`child-signal=<n>` or `child-exit=<n>`)
//     atexit-write <suite> <key> <value> <policy>
//                         register an atexit handler before the library's first use that writes <key> with
//                         <policy> (coalesced or immediate), then write `main` and return from main
//     atexit-write-failing <suite> <key>
//                         the same with a write that cannot reach the disk (a file-size limit)
//     wait-after-write <sleep|read|poll> <suite> <key> <value>
//                         default signal handling; write <key> (coalesced over an hour), print `written`, then
//                         sleep 5 s, read a pipe nobody writes, or poll it for 5 s; print `resumed` and exit 0
//     write-and-observe <suite> <key> <value>
//                         write <key> (coalesced over an hour), print `written`, then observe and poll it,
//                         printing `heard=<value>` and `read=<value>` as it changes
//     open-suite <suite> <key>
//                         open the suite, print `value=<value>` of <key>, and sleep
//     crash-in-handler <suite>
//                         a crash handler for SIGILL and SIGTRAP (prints, exits 42), and a diagnostics handler
//                         that traps on the failed background flush of a write past a file-size limit
//     write-now <suite> <key> <value>
//                         write <key> under the immediate policy; print `written` or the error
//     few-descriptors <suite> <limit>
//                         with RLIMIT_NOFILE at <limit>, write a key (coalesced), flush, print `flushed` or
//                         the error

#if canImport(Glibc)
import Foundation
import Glibc
import TypedDefaults

/// Runs a command of a process's edges; returns the exit status, or `nil` for a command it does not know.
func runProcessLifeCommand(_ arguments: [String]) throws -> Int32? {
    switch arguments.first {
    case "fork-while-writing":
        guard arguments.count == 4, let children = Int(arguments[2]), let threads = Int(arguments[3]) else {
            fail("fork-while-writing: suite, children, threads")
        }
        try forkWhileWriting(suite: arguments[1], children: children, threads: threads)
        return 0
    case "fork-keeping-child":
        guard arguments.count == 2 else { fail("fork-keeping-child: suite") }
        let suite = try adapter(arguments[1], policy: .immediate)
        let stop = Locked(false)
        startWriting(suite, key: "parent", stop: stop)
        usleep(50_000)
        let child = fork()
        if child == 0 {
            while true { sleep(60) }
        }
        say("child=\(child)")
        while true { sleep(60) }
    case "daemon":
        guard arguments.count == 5, let delay = Int(arguments[4]) else { fail("daemon: suite, key, value, delay") }
        resetTerminationSignals()
        let suite = try adapter(arguments[1], policy: .coalesced(within: .milliseconds(delay)))
        suite[key: Key<String?>("first")] = "first"
        try suite.flush()
        if fork() != 0 { _exit(0) }
        setsid()
        say("daemon=\(getpid())")
        suite[key: Key<String?>(arguments[2])] = arguments[3]
        say("written")
        while true { sleep(60) }
    case "forked-pending":
        guard arguments.count == 4 else { fail("forked-pending: suite, key, value") }
        resetTerminationSignals()
        let suite = try adapter(arguments[1], policy: .coalesced(within: .seconds(3600)))
        suite[key: Key<String?>("first")] = "first"
        try suite.flush()
        let child = fork()
        if child == 0 {
            suite[key: Key<String?>(arguments[2])] = arguments[3]
            say("written")
            while true { sleep(60) }
        }
        say("child=\(child)")
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0, errno == EINTR {}
        // WIFSIGNALED and WTERMSIG are macros Swift does not import.
        let signal = status & 0x7f
        say(signal != 0 ? "child-signal=\(signal)" : "child-exit=\((status >> 8) & 0xff)")
        return 0
    case "atexit-write":
        guard arguments.count == 5 else { fail("atexit-write: suite, key, value, policy") }
        exitWrite = (arguments[1], arguments[2], arguments[3], arguments[4] == "immediate")
        atexit { writeAtExit() }
        let suite = try adapter(arguments[1], policy: .coalesced)
        suite[key: Key<String?>("main")] = "main"
        say("main done")
        return 0
    case "atexit-write-failing":
        guard arguments.count == 3 else { fail("atexit-write-failing: suite, key") }
        exitWrite = (arguments[1], arguments[2], String(repeating: "x", count: 200_000), false)
        atexit { writeAtExit() }
        DefaultsDiagnostics.setHandler { diagnostic in say("diagnostic: key=\(diagnostic.key ?? "") \(diagnostic)") }
        let suite = try adapter(arguments[1], policy: .coalesced)
        suite[key: Key<String?>("main")] = "main"
        try suite.flush()
        signal(SIGXFSZ, SIG_IGN)
        setResourceLimit(.fileSize, 20_000)
        say("main done")
        return 0
    case "wait-after-write":
        guard arguments.count == 5 else { fail("wait-after-write: how, suite, key, value") }
        resetTerminationSignals()
        let suite = try adapter(arguments[2], policy: .coalesced(within: .seconds(3600)))
        suite[key: Key<String?>(arguments[3])] = arguments[4]
        say("written")
        switch arguments[1] {
        case "sleep":
            sleep(5)
        case "read":
            // A pipe whose writing end stays open here: the read waits until a signal interrupts it.
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { fail("pipe") }
            var byte: UInt8 = 0
            _ = read(ends[0], &byte, 1)
        case "poll":
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { fail("pipe") }
            var waiting = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
            _ = poll(&waiting, 1, 5_000)
        default:
            fail("wait-after-write: sleep, read or poll")
        }
        say("resumed")
        return 0
    case "crash-in-handler":
        guard arguments.count == 2 else { fail("crash-in-handler: suite") }
        // The program's crash handler: it must run for a fault on any thread, the library's included.
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            let line = "crash handler ran\n"
            _ = line.withCString { write(1, $0, strlen($0)) }
            _exit(42)
        }
        for fault in [SIGILL, SIGTRAP] { sigaction(fault, &action, nil) }
        // A flush in the background fails (a file-size limit), and the handler its diagnostic reaches traps.
        DefaultsDiagnostics.setHandler { diagnostic in
            if diagnostic.kind == .writeFailed { fatalError("the program's own bug, on the thread that reports") }
        }
        let suite = try adapter(arguments[1], policy: .coalesced(within: .milliseconds(10)))
        signal(SIGXFSZ, SIG_IGN)
        setResourceLimit(.fileSize, 1_000)
        suite[key: Key<String?>("big")] = String(repeating: "x", count: 10_000)
        say("written")
        while true { sleep(60) }
    case "write-and-observe":
        // A write coalesced over an hour (only the journal has it), then an observer and a reader of the key, each
        // saying what it finds: another program's later write must reach both, and win.
        guard arguments.count == 4 else { fail("write-and-observe: suite, key, value") }
        resetTerminationSignals()
        let suite = try adapter(arguments[1], policy: .coalesced(within: .seconds(3600)))
        let key = Key<String?>(arguments[2])
        suite[key: key] = arguments[3]
        let observation = suite.observe(key) { say("heard=\($0.newValue ?? "nil")") }
        say("written")
        var last = suite[key: key]
        while true {
            usleep(10_000)
            let now = suite[key: key]
            if now != last { say("read=\(now ?? "nil")") }
            last = now
            withExtendedLifetime(observation) {}
        }
    case "open-suite":
        // Opens a suite and reads it, as any next user of it does, then waits without exiting.
        guard arguments.count == 3 else { fail("open-suite: suite, key") }
        let suite = try adapter(arguments[1], policy: .coalesced)
        say("value=\(suite[key: Key<String?>(arguments[2])] ?? "nil")")
        while true { sleep(60) }
    case "write-now":
        guard arguments.count == 4 else { fail("write-now: suite, key, value") }
        let suite = try adapter(arguments[1], policy: .immediate)
        do {
            try suite.set(arguments[3], for: Key<String?>(arguments[2]))
            say("written")
        } catch {
            say("error: \(error)")
        }
        return 0
    case "few-descriptors":
        guard arguments.count == 3, let limit = UInt64(arguments[2]) else { fail("few-descriptors: suite, limit") }
        // Only the standard three stay open, as in a program started with nothing else.
        for descriptor in 3..<1024 { close(Int32(descriptor)) }
        setResourceLimit(.openFiles, limit)
        let suite = try adapter(arguments[1], policy: .coalesced)
        suite[key: Key<String?>("k")] = "v"
        do {
            try suite.flush()
            say("flushed")
        } catch {
            say("error: \(error)")
        }
        return 0
    default:
        return nil
    }
}

private func adapter(_ suite: String, policy: WritePolicy) throws -> DefaultsAdapter<DefaultsKeys> {
    try DefaultsAdapter(suiteName: suite, keyStore: DefaultsKeys(), launchArguments: .ignored, writePolicy: policy)
}

/// Writes `key` on a thread of its own until `stop` is set, flushing now and then.
private func startWriting(_ suite: DefaultsAdapter<DefaultsKeys>, key: String, stop: Locked<Bool>) {
    Thread.detachNewThread {
        var value = 0
        while !stop.withLock({ $0 }) {
            value += 1
            suite[key: Key<Int>(key, default: 0)] = value
            if value % 50 == 0 { try? suite.flush() }
        }
    }
}

private func forkWhileWriting(suite name: String, children: Int, threads: Int) throws {
    let suite = try adapter(name, policy: .coalesced(within: .milliseconds(5)))
    suite[key: Key<String?>("parent")] = "started"
    // Swift's runtime makes a type's metadata on its first use, under a lock of its own that a fork in the
    // middle would leave held in the child: the types the children use are made before any fork.
    suite[key: Key<Int?>("child.warm-up")] = 0
    suite[key: Key<Int>("writer.warm-up", default: 0)] = 0
    let stop = Locked(false)
    for index in 0..<threads { startWriting(suite, key: "writer.\(index)", stop: stop) }
    var hung = 0
    var forking = Duration.zero
    var waiting = Duration.zero
    for index in 0..<children {
        let started = ContinuousClock.now
        let child = fork()
        forking += ContinuousClock.now - started
        if child == 0 {
            suite[key: Key<Int?>("child.\(index)")] = index
            exit(0)
        }
        var status: Int32 = 0
        let deadline = ContinuousClock.now + .seconds(10)
        while waitpid(child, &status, WNOHANG) == 0 {
            guard ContinuousClock.now < deadline else {
                hung += 1
                kill(child, SIGKILL)
                waitpid(child, &status, 0)
                break
            }
            usleep(1_000)
        }
        waiting += ContinuousClock.now - started
        if status != 0 { say("child \(index) status=\(status)") }
    }
    stop.withLock { $0 = true }
    // The parent goes on writing after its children.
    suite[key: Key<String?>("parent")] = "finished"
    try suite.flush()
    say("forking=\(forking / children) per child=\(waiting / children)")
    say("hung=\(hung)")
}

/// What the atexit handler writes: suite, key, value, and whether under the immediate policy.
nonisolated(unsafe) private var exitWrite: (String, String, String, Bool)?

private func writeAtExit() {
    guard let (name, key, value, immediate) = exitWrite else { return }
    do {
        let suite = try adapter(name, policy: immediate ? .immediate : .coalesced)
        suite[key: Key<String?>(key)] = value
    } catch {
        say("atexit: \(error)")
    }
}

/// A value only reached under its lock, for the helper's threads.
final class Locked<Value: Sendable>: @unchecked Sendable {
    // `value` is only used under `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
#else
/// The commands of a process's edges need Glibc; elsewhere none is known.
func runProcessLifeCommand(_ arguments: [String]) throws -> Int32? { nil }
#endif
