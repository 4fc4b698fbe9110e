// What the tests run as a separate process beside `fleet-settings`:
//
//     postgres-store-helper hold URL SUITE KEY VALUE coalesced|immediate
//         writes the Int VALUE with writes coalesced for a minute (the write is still in memory only when a
//         signal comes) or committed before `set` returns, prints "set", and waits to be signalled.
//     postgres-store-helper fork URL SUITE KEY
//         writes KEY = 1 and commits it, then forks without exec. The child reads KEY, writes KEY = 2 (flushed,
//         then pending at exit) and exits; the parent waits for it, then writes KEY = 3 and commits it. Prints
//         each side's outcome as `child-read=`, `child-flush=`, `parent-flush=` lines, and `child-status=`.

import Foundation
import TypedDefaults
import TypedDefaultsPostgres

#if canImport(Glibc)
import Glibc
#endif

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Runs `write` and says `LABEL=ok`, or `LABEL=` and the error.
func report(_ label: String, _ write: () throws -> Void) {
    do {
        try write()
        say("\(label)=ok")
    } catch {
        say("\(label)=\(error)")
    }
}

let arguments = CommandLine.arguments
switch (arguments.count, arguments.count > 1 ? arguments[1] : "") {
case (7, "hold"):
    guard let value = Int(arguments[5]), ["coalesced", "immediate"].contains(arguments[6]) else { exit(64) }
    do {
        let store = try PostgresStore(url: arguments[2], suite: arguments[3])
        let defaults = DefaultsAdapter(
            store: store,
            keyStore: DefaultsKeys(),
            writePolicy: arguments[6] == "immediate" ? .immediate : .coalesced(within: .seconds(60))
        )
        try defaults.set(value, for: Key<Int>(arguments[4], default: 0))
        say("set")
        withExtendedLifetime(defaults) { dispatchMain() }
    } catch {
        FileHandle.standardError.write(Data("postgres-store-helper: \(error)\n".utf8))
        exit(1)
    }

case (5, "fork"):
    do {
        let store = try PostgresStore(url: arguments[2], suite: arguments[3])
        let defaults = DefaultsAdapter(store: store, keyStore: DefaultsKeys(), writePolicy: .immediate)
        let key = Key<Int>(arguments[4], default: 0)
        try defaults.set(1, for: key)
        let child = fork()
        if child == 0 {
            say("child-read=\(defaults[key])")
            report("child-flush") { try defaults.set(2, for: key) }
            // A write left pending for the exit flush, which must end too.
            let coalesced = DefaultsAdapter(store: store, keyStore: DefaultsKeys(), writePolicy: .coalesced)
            coalesced[key] = 4
            exit(0)
        }
        var status: Int32 = 0
        waitpid(child, &status, 0)
        say("child-status=\(status)")
        report("parent-flush") { try defaults.set(3, for: key) }
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("postgres-store-helper: \(error)\n".utf8))
        exit(1)
    }

default:
    FileHandle.standardError.write(
        Data("usage: postgres-store-helper hold URL SUITE KEY VALUE | fork URL SUITE KEY\n".utf8)
    )
    exit(64)
}
