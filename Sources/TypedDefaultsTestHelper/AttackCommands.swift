import Foundation
import TypedDefaults
import TypedDefaultsTestSupport

#if canImport(Glibc)
import Glibc
#endif

// Commands of the attack on stores of the program's own flushed at shutdown (OpenStores).
//
//     TypedDefaultsTestHelper own-store-locked <file>      a store guarding its values with its own lock (an
//                                                          NSLock held over a slow "server" call in apply), written
//                                                          in a loop on the main thread; hangs until a signal
//     TypedDefaultsTestHelper own-store-reentrant <file>   a store whose flush() first flushes everything else
//                                                          (DefaultsShutdown.flushAll()); then exit(0)
//     TypedDefaultsTestHelper increment-key <suite> <key> <count>   modify(key) += 1 as an Int, count times

/// A store over "a server": `apply` holds the store's own lock across a slow call, `flush` takes it too.
final class LockedServerStore: DefaultsStore, @unchecked Sendable {
    let name = "locked-server"
    private let lock = NSLock()
    private let memory = InMemoryStore()
    private let file: URL
    private let slowApply: Bool

    init(file: URL, slowApply: Bool) {
        self.file = file
        self.slowApply = slowApply
    }

    var changes: DefaultsStoreChanges { memory.changes }
    func value(forKey key: String) -> PropertyListValue? { memory.value(forKey: key) }
    func snapshot() -> [String: PropertyListValue] { memory.snapshot() }
    func apply(_ batch: DefaultsBatch) throws(DefaultsError) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        // The round trip to the server.
        if slowApply { usleep(200_000) }
        return try memory.apply(batch)
    }

    func flush() throws(DefaultsError) {
        lock.lock()
        defer { lock.unlock() }
        var strings: [String: String] = [:]
        for (key, value) in memory.snapshot() {
            if case .string(let string) = value { strings[key] = string }
        }
        do {
            try JSONSerialization.data(withJSONObject: strings, options: .sortedKeys).write(to: file, options: .atomic)
        } catch {
            throw .writeFailed(suite: name, key: nil, reason: "\(error)")
        }
    }
}

/// A store whose flush makes sure everything else is flushed first.
final class ReentrantStore: DefaultsStore, @unchecked Sendable {
    let name = "reentrant"
    private let inner: JournalStore
    private let depth = NSLock()
    nonisolated(unsafe) private var calls = 0

    init(file: URL) { inner = JournalStore(file: file) }

    var changes: DefaultsStoreChanges { inner.changes }
    func value(forKey key: String) -> PropertyListValue? { inner.value(forKey: key) }
    func snapshot() -> [String: PropertyListValue] { inner.snapshot() }
    func apply(_ batch: DefaultsBatch) throws(DefaultsError) -> Bool { try inner.apply(batch) }

    func flush() throws(DefaultsError) {
        depth.lock()
        calls += 1
        let count = calls
        depth.unlock()
        if count == 50 { say("reentered=50") }
        try DefaultsShutdown.flushAll()
        try inner.flush()
    }
}

func runAttackCommand(_ arguments: [String]) throws -> Int32? {
    switch arguments.first {
    case "own-store-locked":
        guard arguments.count == 2 else { fail("own-store-locked: file") }
        resetTerminationSignals()
        let store = LockedServerStore(file: URL(fileURLWithPath: arguments[1]), slowApply: true)
        let defaults = DefaultsAdapter(store: store, keyStore: DefaultsKeys(), writePolicy: .coalesced(within: .seconds(3600)))
        defaults[key: Key<String?>("k")] = "v0"
        say("written")
        var round = 1
        while true {
            defaults[key: Key<String?>("k")] = "v\(round)"
            round += 1
        }
    case "own-store-reentrant":
        guard arguments.count == 2 else { fail("own-store-reentrant: file") }
        resetTerminationSignals()
        let store = ReentrantStore(file: URL(fileURLWithPath: arguments[1]))
        let defaults = DefaultsAdapter(store: store, keyStore: DefaultsKeys(), writePolicy: .coalesced(within: .seconds(3600)))
        defaults[key: Key<String?>("k")] = "v"
        say("written")
        withExtendedLifetime(defaults) { exit(0) }
    case "increment-key":
        // modify(key) += 1, count times, as an Int; prints the last value seen.
        guard arguments.count == 4, let count = Int(arguments[3]) else { fail("increment-key: suite, key, count") }
        let defaults = try DefaultsAdapter(suiteName: arguments[1], keyStore: DefaultsKeys(), launchArguments: .ignored)
        let key = Key<Int?>(arguments[2])
        say("ready")
        for _ in 0..<count { try defaults.modify(key) { $0 = ($0 ?? 0) + 1 } }
        say("last=\(defaults[key: key] ?? -1)")
        return 0
    default:
        return nil
    }
}
