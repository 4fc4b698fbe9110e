// Commands for the hostile-conditions tests: a process that holds a suite's lock, one that rewrites a file in
// place slowly, one that runs out of descriptors or disk.
//
//     hold-lock <suite>                          take the suite's file lock, say so, then hang
//     increment-quietly <suite> <count>          modify `counter` += 1, count times, retrying refused writes
//     slow-rewrite <file> <from> <to>            rewrite `counter` = from...to in place, each in two halves
//     many-suites <live> <rounds>                under `ulimit -n 1024`: keep <live> suites open and write to
//                                                each, then open, write and drop suites <rounds> times
//     write-failing-observed <suite> <other>     an observed write that cannot reach the disk, then another
//                                                suite's small write
//     damaged-full-disk <suite> <bytes>          read a damaged suite and try to write it, with files limited
//                                                to <bytes>

import Foundation
import TypedDefaults

#if canImport(Glibc)
import Glibc
#endif

/// Runs a hostile-conditions command; returns the exit status, or `nil` for a command it does not know.
func runHostileCommand(_ arguments: [String]) throws -> Int32? {
    switch arguments.first {
    case "hold-lock":
        guard arguments.count == 2 else { fail("hold-lock needs a suite") }
        let directory = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"]!
        let descriptor = open(directory + "/." + arguments[1] + ".plist.lock", O_RDWR | O_CREAT, 0o600)
        guard descriptor >= 0, flock(descriptor, LOCK_EX) == 0 else { fail("cannot lock") }
        say("locked")
        while true { sleep(60) }
    case "increment-quietly":
        guard arguments.count == 3, let count = Int(arguments[2]) else { fail("increment-quietly: suite, count") }
        let defaults = try DefaultsAdapter(suiteName: arguments[1], keyStore: DefaultsKeys(), launchArguments: .ignored)
        var done = 0
        while done < count {
            do {
                try defaults.modify(Key<Int>("counter", default: 0)) { $0 += 1 }
                done += 1
            } catch {
                // A lock file replaced under a writer is a failed write, never a lost or doubled increment.
                say("retry: \(error)")
            }
        }
        return 0
    case "slow-rewrite":
        guard arguments.count == 4, let from = Int(arguments[2]), let to = Int(arguments[3]) else {
            fail("slow-rewrite: file, from, to")
        }
        for value in from...to {
            let data = try PropertyListSerialization.data(
                fromPropertyList: ["counter": value, "padding": String(repeating: "x", count: 4096)],
                format: .xml,
                options: 0
            )
            // As Foundation writes: truncate in place, then write; here in two halves with a pause between.
            let descriptor = open(arguments[1], O_WRONLY | O_TRUNC)
            guard descriptor >= 0 else { fail("cannot open \(arguments[1])") }
            let half = data.count / 2
            data.withUnsafeBytes { bytes in
                _ = write(descriptor, bytes.baseAddress!, half)
                usleep(30_000)
                _ = write(descriptor, bytes.baseAddress! + half, data.count - half)
            }
            close(descriptor)
            usleep(20_000)
        }
        say("rewritten")
        return 0
    case "many-suites":
        guard arguments.count == 3, let live = Int(arguments[1]), let rounds = Int(arguments[2]) else {
            fail("many-suites: live, rounds")
        }
        setResourceLimit(.openFiles, 1024)
        let key = Key<Int>("value", default: -1)
        var kept: [DefaultsAdapter<DefaultsKeys>] = []
        for index in 0..<live {
            let suite = try DefaultsAdapter(
                suiteName: "live.\(index)",
                keyStore: DefaultsKeys(),
                launchArguments: .ignored
            )
            suite[key: key] = index
            kept.append(suite)
        }
        for suite in kept { try suite.flush() }
        let before = openDescriptorCount()
        for round in 0..<rounds {
            let suite = try DefaultsAdapter(
                suiteName: "dropped.\(round % 100)",
                keyStore: DefaultsKeys(),
                launchArguments: .ignored
            )
            suite[key: key] = round
        }
        // The dropped suites' last writes land within the coalescing delay (give a slow machine 20 s).
        var after = openDescriptorCount()
        for _ in 0..<200 where after > before + 16 {
            usleep(100_000)
            after = openDescriptorCount()
        }
        say("descriptors=\(before),\(after)")
        say("live=\(kept.count)")
        return 0
    case "damaged-full-disk":
        guard arguments.count == 3, let limit = UInt(arguments[2]) else { fail("damaged-full-disk: suite, bytes") }
        signal(SIGXFSZ, SIG_IGN)
        setResourceLimit(.fileSize, UInt64(limit))
        let defaults = try DefaultsAdapter(
            suiteName: arguments[1],
            keyStore: DefaultsKeys(),
            launchArguments: .ignored,
            writePolicy: .immediate
        )
        let key = Key<Int>("counter", default: -1)
        let deadline = Date() + 1
        while Date() < deadline {
            _ = defaults[key: key]
            try? defaults.checkHealth()
            usleep(10_000)
        }
        do {
            try defaults.set(1, for: key)
            say("write=succeeded")
        } catch {
            say("write=\(error)")
        }
        return 0
    case "write-failing-observed":
        // A write that cannot reach the disk, with an observer of its key; then a small write to another suite.
        guard arguments.count == 3 else { fail("write-failing-observed: suite, other suite") }
        let failing = try DefaultsAdapter(suiteName: arguments[1], keyStore: DefaultsKeys(), writePolicy: .immediate)
        let other = try DefaultsAdapter(suiteName: arguments[2], keyStore: DefaultsKeys(), writePolicy: .immediate)
        let key = Key<String>("big", default: "")
        let heard = DispatchSemaphore(value: 0)
        let token = failing.observe(key) { _ in heard.signal() }
        signal(SIGXFSZ, SIG_IGN)
        setResourceLimit(.fileSize, 20_000)
        do {
            try failing.set(String(repeating: "x", count: 40_000), for: key)
            say("failing=written")
        } catch {
            say("failing=\(error)")
        }
        say("read=\(failing[key: key].count)")
        say("heard=\(heard.wait(timeout: .now() + 5) == .success)")
        do {
            try other.set("small", for: key)
            say("other=written")
        } catch {
            say("other=\(error)")
        }
        token.invalidate()
        _exit(0)
    default:
        return nil
    }
}
