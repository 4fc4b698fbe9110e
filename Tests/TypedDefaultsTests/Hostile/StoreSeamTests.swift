import Foundation
import Testing

@testable import TypedDefaults

/// What a ``HookedStore`` does besides storing, and what it saw: kept apart from the store so that a test can
/// still look after the store is gone.
private final class StoreProbe: Sendable {
    struct Hooks: Sendable {
        var onValue: @Sendable (String) -> Void = { _ in }
        var onSnapshot: @Sendable () -> Void = {}
        var onApply: @Sendable (DefaultsBatch) throws(DefaultsError) -> Void = { _ in }
        var onFlush: @Sendable () throws(DefaultsError) -> Void = {}
        /// Refuses every batch that expects something, as a store would whose values always moved.
        var refusesExpectations = false
    }

    struct Counts: Sendable {
        var flushes = 0
        var running = 0
        var mostRunning = 0
        /// What the store held when its last successful flush started: what a durable store would have kept.
        var flushed: [String: PropertyListValue] = [:]
    }

    let hooks = Locked(Hooks())
    let counts = Locked(Counts())
}

/// A store of a user's own, as the protocol's documentation shows one, that runs a test's code (user code)
/// from every entry point, outside its lock; it announces its changes under its lock, as documented.
private final class HookedStore: DefaultsStore {
    let name = "hooked.\(UUID().uuidString)"
    let changes: DefaultsStoreChanges
    let values = Locked<[String: PropertyListValue]>([:])
    let probe: StoreProbe

    init(probe: StoreProbe = StoreProbe(), observersChanged: @escaping @Sendable () -> Void = {}) {
        self.probe = probe
        self.changes = DefaultsStoreChanges(observersChanged: observersChanged)
    }

    func value(forKey key: String) -> PropertyListValue? {
        probe.hooks.withLock { $0.onValue }(key)
        return values.withLock { $0[key] }
    }

    func snapshot() -> [String: PropertyListValue] {
        probe.hooks.withLock { $0.onSnapshot }()
        return values.withLock { $0 }
    }

    func apply(_ batch: DefaultsBatch) throws(DefaultsError) -> Bool {
        let hooks = probe.hooks.withLock { $0 }
        try hooks.onApply(batch)
        if hooks.refusesExpectations, batch.expected != nil { return false }
        try batch.checkStorable()
        return values.withLock { values in
            guard let changed = batch.apply(to: &values) else { return false }
            changes.publish(changed)
            return true
        }
    }

    func flush() throws(DefaultsError) {
        let state = values.withLock { $0 }
        probe.counts.withLock { counts in
            counts.flushes += 1
            counts.running += 1
            counts.mostRunning = max(counts.mostRunning, counts.running)
        }
        defer { probe.counts.withLock { $0.running -= 1 } }
        // The hooks, not the closure, come out of the lock: a typed-throws function type as a generic
        // argument needs the runtime of macOS 15 / iOS 18.
        let hooks = probe.hooks.withLock { $0 }
        try hooks.onFlush()
        probe.counts.withLock { $0.flushed = state }
    }
}

extension Hostile {
    @Suite("Hostile: store seam")
    struct StoreSeamTests {
        // MARK: User stores calling back

        @Test("a store that calls back into its adapter from every entry point neither deadlocks nor recurses")
        func reentrantStore() {
            let store = HookedStore()
            let defaults = DefaultsAdapter(
                store: store,
                keyStore: DefaultsKeys(),
                writePolicy: .coalesced(within: .milliseconds(1))
            )
            let probe = Key<Int>("probe", default: 0)
            let other = Key<[URL]>("other", default: [])
            let box = Locked<DefaultsAdapter<DefaultsKeys>?>(defaults)
            defer { box.withLock { $0 = nil } }
            store.probe.hooks.withLock { hooks in
                hooks.onValue = { key in
                    guard key == probe.name, let defaults = box.withLock({ $0 }) else { return }
                    _ = defaults.snapshot()[key: other]
                    _ = defaults.hasKey(other)
                }
                hooks.onSnapshot = { _ = box.withLock({ $0 })?[key: other] }
                hooks.onApply = { batch in
                    guard batch.writes.keys.contains(probe.name), let defaults = box.withLock({ $0 }) else { return }
                    defaults[key: other] = [URL(fileURLWithPath: "/from-apply")]
                    try? defaults.flush()
                    _ = defaults.storedValues()
                }
                hooks.onFlush = {
                    guard let defaults = box.withLock({ $0 }) else { return }
                    _ = defaults[key: probe]
                    _ = defaults.snapshot()
                }
            }
            let property = Default(key: probe, adapter: defaults, options: .cached)
            let observation = defaults.observe(probe) { _ in _ = box.withLock({ $0 })?[key: probe] }
            #expect(
                finishes {
                    for value in 1...20 {
                        defaults[key: probe] = value
                        _ = property.wrappedValue
                    }
                    _ = try? defaults.modify(probe) { $0 += 1 }
                    try? defaults.modifyStoredValues { $0["extra"] = .integer(1) }
                    try? defaults.flush()
                },
                "a store calling back into its adapter deadlocked"
            )
            #expect(defaults[key: probe] == 21)
            #expect(property.wrappedValue == 21)
            #expect(defaults[key: other] == [URL(fileURLWithPath: "/from-apply")])
            observation.invalidate()
        }

        @Test("a store announcing under its own lock never deadlocks with observers that read it back")
        func announcingUnderTheStoresLock() {
            // The store's watch of its backing service takes the store's own lock, as a real one would.
            let holder = Locked<HookedStore?>(nil)
            let store = HookedStore(observersChanged: { _ = holder.withLock({ $0 })?.values.withLock { $0.count } })
            holder.withLock { $0 = store }
            defer { holder.withLock { $0 = nil } }
            let defaults = DefaultsAdapter(store: store, keyStore: DefaultsKeys(), writePolicy: .immediate)
            let key = Key<Int>("count", default: 0)
            let property = Default(key: key, adapter: defaults, options: .cached)
            let observation = defaults.observe(key) { _ in
                _ = defaults[key: key]
                _ = store.snapshot()
            }
            let all = defaults.observeStoredValues { _ in _ = defaults.storedValues() }
            #expect(
                finishes {
                    DispatchQueue.concurrentPerform(iterations: 4) { worker in
                        for round in 0..<150 {
                            if worker == 3 {
                                // Observers come and go while the others write.
                                defaults.observe(key, options: [.initial]) { _ in _ = store.snapshot() }.invalidate()
                                _ = property.wrappedValue
                            } else {
                                defaults[key: key] = worker * 1000 + round
                            }
                        }
                    }
                    defaults[key: key] = -1
                },
                "announcing under the store's lock deadlocked"
            )
            #expect(eventually { property.wrappedValue == -1 }, "the observed property missed the last change")
            observation.invalidate()
            all.invalidate()
        }

        // MARK: Stores that refuse or fail

        @Test("modify on a store whose values always moved stops after its attempts, with a clear error")
        func applyAlwaysRefuses() {
            let store = HookedStore()
            store.probe.hooks.withLock { $0.refusesExpectations = true }
            let defaults = DefaultsAdapter(store: store, keyStore: DefaultsKeys(), writePolicy: .immediate)
            let key = Key<Int>("count", default: 0)
            defaults[key: key] = 5
            var runs = 0
            do {
                try defaults.modify(key) { value in
                    value += 1
                    runs += 1
                }
                Issue.record("modify succeeded on a store that refuses it")
            } catch {
                guard case .writeFailed(let suite, let failedKey, let reason) = error else {
                    Issue.record("unexpected error \(error)")
                    return
                }
                #expect(suite == store.name)
                #expect(failedKey == "count")
                #expect(reason.contains("\(ReadModifyWrite.maximumStalls) times"), "\(reason)")
            }
            #expect(runs == ReadModifyWrite.maximumStalls)
            #expect(defaults[key: key] == 5, "a refused modify changed the value")

            #expect(throws: DefaultsError.self) { try defaults.modifyStoredValues { $0["new"] = .integer(1) } }
            #expect(store.values.withLock { $0["new"] } == nil)
        }

        @Test("a store that cannot apply leaves the old value, under either write policy, with the error")
        func applyThrows() throws {
            DiagnosticsRecorder.install()
            for policy in [WritePolicy.immediate, .coalesced] {
                let store = HookedStore()
                let defaults = DefaultsAdapter(store: store, keyStore: DefaultsKeys(), writePolicy: policy)
                let key = Key<[URL]>("files", default: [])
                let property = Default(key: key, adapter: defaults, options: [.cached])
                defaults[key: key] = [URL(fileURLWithPath: "/a")]
                #expect(property.wrappedValue == [URL(fileURLWithPath: "/a")])
                let offline = DefaultsError.writeFailed(suite: store.name, key: nil, reason: "the service is offline")
                store.probe.hooks.withLock { $0.onApply = { _ throws(DefaultsError) in throw offline } }

                #expect(throws: offline) { try defaults.set([URL(fileURLWithPath: "/b")], for: key) }
                property.wrappedValue = [URL(fileURLWithPath: "/c")]
                #expect(throws: offline) { try defaults.modify(key) { $0 = [] } }
                #expect(defaults[key: key] == [URL(fileURLWithPath: "/a")])
                #expect(
                    property.wrappedValue == [URL(fileURLWithPath: "/a")],
                    "the cached property kept a refused value"
                )
                let reported = DiagnosticsRecorder.diagnostics(forSuite: store.name)
                #expect(reported.contains { $0.kind == .writeFailed && $0.message.contains("offline") })
            }
        }

        @Test("a flush that keeps failing is retried with backoff, one at a time, until it succeeds")
        func flushFailsThenRecovers() {
            DiagnosticsRecorder.install()
            let probe = StoreProbe()
            let broken = DefaultsError.writeFailed(suite: "hooked", key: nil, reason: "disk unplugged")
            probe.hooks.withLock { $0.onFlush = { () throws(DefaultsError) in throw broken } }
            weak var released: HookedStore?
            let name: String
            do {
                let store = HookedStore(probe: probe)
                released = store
                name = store.name
                let defaults = DefaultsAdapter(
                    store: store,
                    keyStore: DefaultsKeys(),
                    writePolicy: .coalesced(within: .milliseconds(20))
                )
                for value in 0..<300 { defaults[key: Key<Int>("count", default: 0)] = value }
            }
            #expect(eventually { probe.counts.withLock { $0.flushes } >= 2 }, "a failed flush was not retried")
            // 300 writes, and a flush failing at each try: retries, not a flush (or a report) per write.
            #expect(probe.counts.withLock { $0.flushes } < 20)
            #expect(probe.counts.withLock { $0.mostRunning } == 1)
            let failures = DiagnosticsRecorder.diagnostics(forSuite: name).filter { $0.kind == .writeFailed }
            #expect(!failures.isEmpty && failures.count <= probe.counts.withLock { $0.flushes })
            #expect(failures.allSatisfy { $0.message.contains("trying again") })

            probe.hooks.withLock { $0.onFlush = {} }
            #expect(eventually { probe.counts.withLock { $0.flushed["count"] } == .integer(299) })
            // The retry held the store only until it succeeded.
            #expect(eventually { released == nil }, "the store outlived its last successful flush")
        }

        @Test("a slow flush is never run twice at once, and writes made during it are flushed after it")
        func slowFlushRunsOneAtATime() {
            let store = HookedStore()
            store.probe.hooks.withLock { $0.onFlush = { usleep(60_000) } }
            let defaults = DefaultsAdapter(
                store: store,
                keyStore: DefaultsKeys(),
                writePolicy: .coalesced(within: .milliseconds(1))
            )
            let key = Key<Int>("count", default: 0)
            for value in 1...30 {
                defaults[key: key] = value
                usleep(10_000)
            }
            #expect(eventually { store.probe.counts.withLock { $0.flushed[key.name] } == .integer(30) })
            #expect(
                store.probe.counts.withLock { $0.mostRunning } == 1,
                "scheduled flushes piled up behind a slow one: each holds a thread"
            )
        }

        // MARK: The decoded-value cache

        @Test("cached properties of same-named keys with different defaults each read their own default")
        func cachedDefaultsAreNotShared() throws {
            let store = InMemoryStore()
            let defaults = DefaultsAdapter(store: store, keyStore: DefaultsKeys())
            let three = Default(key: Key<Int>("retries", default: 3), adapter: defaults, options: [.cached])
            let five = Default(key: Key<Int>("retries", default: 5), adapter: defaults, options: [.cached])
            #expect(three.wrappedValue == 3)
            #expect(five.wrappedValue == 5, "one key's default was handed out for another's")
            #expect(defaults[key: Key<Int>("retries", default: 7)] == 7)

            // A stored value of another type reads as each key's own default too.
            #expect(try store.apply(DefaultsBatch(writes: ["mode": .string("fast")])))
            let one = Default(key: Key<Int>("mode", default: 1), adapter: defaults, options: [.cached])
            let two = Default(key: Key<Int>("mode", default: 2), adapter: defaults, options: [.cached])
            #expect(one.wrappedValue == 1)
            #expect(two.wrappedValue == 2, "one key's fallback was handed out for another's")
        }

        @Test("an observed cached property follows a write made without propagation through another adapter")
        func observedCacheIgnoresPropagation() throws {
            let suite = IsolatedSuite()
            let other = try suite.secondAdapter(keyStore: DefaultsKeys())
            let key = Key<Int>("count", default: 0)
            let property = Default(key: key, adapter: suite.adapter, options: .cached)
            #expect(property.wrappedValue == 0)
            other.withoutPropagation { other[key: key] = 5 }
            #expect(suite.adapter[key: key] == 5)
            #expect(property.wrappedValue == 5, "withoutPropagation left an observed cached property stale")

            let store = InMemoryStore()
            let first = DefaultsAdapter(store: store, keyStore: DefaultsKeys())
            let second = DefaultsAdapter(store: store, keyStore: DefaultsKeys())
            let cached = Default(key: key, adapter: first, options: .cached)
            #expect(cached.wrappedValue == 0)
            second.withoutPropagation { second[key: key] = 9 }
            #expect(cached.wrappedValue == 9, "withoutPropagation left an observed cached property stale")
        }

        @Test("a kept value is decoded again when a zero's sign, a NaN's payload or a string's normalization changes")
        func cacheComparesBits() throws {
            let store = InMemoryStore()
            let defaults = DefaultsAdapter(store: store, keyStore: DefaultsKeys())
            let numbers = Key<[Double]>("numbers", default: [])
            #expect(try store.apply(DefaultsBatch(writes: ["numbers": .array([.double(0.0)])])))
            #expect(defaults[key: numbers].first?.sign == .plus)
            #expect(try store.apply(DefaultsBatch(writes: ["numbers": .array([.double(-0.0)])])))
            #expect(defaults[key: numbers].first?.sign == .minus)
            // A NaN with a payload is stored as its bits in text (a <real> cannot carry it).
            let quiet = Double(nan: 1, signaling: false)
            let other = Double(nan: 2, signaling: false)
            let bridge = FloatingPointBridge<Double>()
            #expect(try store.apply(DefaultsBatch(writes: ["numbers": .array([bridge.serialize(quiet)!])])))
            #expect(defaults[key: numbers].first?.bitPattern == quiet.bitPattern)
            #expect(try store.apply(DefaultsBatch(writes: ["numbers": .array([bridge.serialize(other)!])])))
            #expect(defaults[key: numbers].first?.bitPattern == other.bitPattern)

            let names = Key<[String]>("names", default: [])
            #expect(try store.apply(DefaultsBatch(writes: ["names": .array([.string("caf\u{E9}")])])))
            #expect(defaults[key: names].first?.unicodeScalars.count == 4)
            #expect(try store.apply(DefaultsBatch(writes: ["names": .array([.string("cafe\u{301}")])])))
            #expect(defaults[key: names].first?.unicodeScalars.count == 5)
        }

        // MARK: Observations keep their store

        #if !TYPED_DEFAULTS_FOUNDATION_STORAGE  // needs the Linux file store; see FileStoreOnly.swift
        @Test("observing every stored value keeps the suite open, so later writes are still heard")
        func storedValuesObservationKeepsTheSuite() throws {
            let directory = TemporaryConfigDirectory()
            let name = "tests.\(UUID().uuidString)"
            let seen = Locked<[String]>([])
            weak var opened: FileStore?
            let observation = try {
                let adapter = try DefaultsAdapter(
                    suiteName: name,
                    directory: directory.url,
                    keyStore: DefaultsKeys(),
                    launchArguments: .ignored
                )
                opened = adapter.store as? FileStore
                return adapter.observeStoredValues { changes in seen.withLock { $0 += changes.map(\.key) } }
            }()
            #expect(opened != nil, "the running observation let the suite close")
            let writer = try DefaultsAdapter(
                suiteName: name,
                directory: directory.url,
                keyStore: DefaultsKeys(),
                launchArguments: .ignored,
                writePolicy: .immediate
            )
            writer[key: Key<Int>("count", default: 0)] = 1
            #expect(eventually { seen.withLock { $0.contains("count") } }, "the observation went deaf")
            observation.invalidate()
        }

        @Test("observers coming and going from many threads leave no file watch behind")
        func observersChangedRaces() throws {
            let suite = IsolatedSuite()
            let store = try #require(suite.adapter.store as? FileStore)
            let adapter = suite.adapter
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                for _ in 0..<100 {
                    adapter.observe(\.launchCount) { _ in }.invalidate()
                    adapter.observeStoredValues { _ in }.invalidate()
                }
            }
            #expect(!store.changes.hasObservers)
            #expect(store.watch.withLock { $0 } == nil, "a file watch outlived every observer")
        }

        // MARK: Batches

        @Test("batches: removing everything and writing the same keys, expecting what is removed, checks reset")
        func batchEdges() throws {
            var values: [String: PropertyListValue] = ["a": .integer(1), "b": .integer(2)]
            let replace = DefaultsBatch(writes: ["a": .integer(1), "c": .integer(3), "b": nil], removesAll: true)
            let changed = try #require(replace.apply(to: &values))
            #expect(values == ["a": .integer(1), "c": .integer(3)])
            #expect(
                Set(changed) == [
                    DefaultsStoreChange(key: "b", oldValue: .integer(2), newValue: nil),
                    DefaultsStoreChange(key: "c", oldValue: nil, newValue: .integer(3)),
                ],
                "a value removed and written back unchanged is no change"
            )

            let removeIfOne = DefaultsBatch(writes: ["a": nil], expected: .values(["a": .integer(1)]))
            var two: [String: PropertyListValue] = ["a": .integer(2)]
            #expect(removeIfOne.apply(to: &two) == nil)
            #expect(two == ["a": .integer(2)])
            #expect(
                removeIfOne.apply(to: &values) == [DefaultsStoreChange(key: "a", oldValue: .integer(1), newValue: nil)]
            )

            // A batch the adapter checked, changed afterwards, is checked again.
            let directory = TemporaryConfigDirectory()
            let foundation = UserDefaultsStore(UserDefaults(suiteName: directory.url.path + "/batches")!)
            for store in [InMemoryStore() as any DefaultsStore, foundation] {
                var batch = DefaultsBatch.checked("fine", .string("ok"))
                batch.writes["fine"] = .string("bell\u{7}")
                #expect(throws: DefaultsError.self) { try store.apply(batch) }
                var renamed = DefaultsBatch.checked("fine", .string("ok"))
                renamed.writes = ["bad\u{1}key": .integer(1)]
                #expect(throws: DefaultsError.self) { try store.apply(renamed) }
                #expect(store.value(forKey: "fine") == nil)
            }
        }

        @Test("a file store checks a whole-snapshot expectation against its pending writes too")
        func snapshotExpectationWithPendingWrites() throws {
            let suite = IsolatedSuite(writePolicy: .coalesced(within: .seconds(3600)))
            let store = try #require(suite.adapter.store as? FileStore)
            suite.adapter[key: Key<Int>("pending", default: 0)] = 7
            let seen = store.snapshot()
            #expect(seen["pending"] == .integer(7))
            #expect(try store.apply(DefaultsBatch(writes: ["added": .integer(1)], expected: .snapshot(seen))))
            // Applied to the file at once, with the pending write.
            let file = try suite.fileContents()
            #expect(file["pending"] as? Int == 7)
            #expect(file["added"] as? Int == 1)
            #expect(try store.apply(DefaultsBatch(writes: ["late": .integer(1)], expected: .snapshot(seen))) == false)
            #expect(store.value(forKey: "late") == nil)
            #expect(try suite.fileContents()["late"] == nil)
        }

        // MARK: Suites opened twice, by hostile names and paths

        @Test("two stores on one file through a symbolic link still exclude each other's modifies")
        func symlinkedDirectory() throws {
            let directory = TemporaryConfigDirectory()
            let link = directory.url.deletingLastPathComponent().appendingPathComponent(UUID().uuidString)
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: directory.url)
            defer { try? FileManager.default.removeItem(at: link) }
            let name = "tests.\(UUID().uuidString)"
            let first = try FileStore.suite(name, directory: directory.url)
            let second = try FileStore.suite(name, directory: link)
            #expect(first !== second)
            #expect(try FileStore.suite(name, directory: directory.url.appendingPathComponent("sub/..")) === first)
            let counter = Key<Int>("counter", default: 0)
            let adapters = [first, second]
                .map {
                    DefaultsAdapter(store: $0, keyStore: DefaultsKeys(), writePolicy: .immediate)
                }
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                for _ in 0..<100 { _ = try? adapters[index].modify(counter) { $0 += 1 } }
            }
            #expect(try directory.contents(ofSuite: name)["counter"] as? Int == 200)
        }

        @Test("a suite named like another suite's temporary file is not swept away as one")
        func suiteNamedLikeATemporaryFile() throws {
            let directory = TemporaryConfigDirectory()
            let name = "tests.\(UUID().uuidString)"
            // A process that has exited: its temporary files are fair game, but only those.
            let exited = Process()
            exited.executableURL = URL(fileURLWithPath: "/bin/true")
            try exited.run()
            exited.waitUntilExit()
            let lookalike = ".\(name).plist.tmp-\(exited.processIdentifier)-"
            let victim = DefaultsAdapter(
                store: try FileStore.suite(lookalike, directory: directory.url),
                keyStore: DefaultsKeys(),
                writePolicy: .immediate
            )
            victim[key: Key<Int>("count", default: 0)] = 1
            #expect(try directory.contents(ofSuite: lookalike)["count"] as? Int == 1)

            let sweeper = DefaultsAdapter(
                store: try FileStore.suite(name, directory: directory.url),
                keyStore: DefaultsKeys(),
                writePolicy: .immediate
            )
            sweeper[key: Key<Int>("count", default: 0)] = 2
            #expect(
                FileManager.default.fileExists(atPath: directory.plist(lookalike).path),
                "another suite's sweep of temporary files deleted this suite's file"
            )
        }

        @Test("hostile suite names and directories get a typed error, never a path outside the directory")
        func hostileNames() {
            let directory = URL(fileURLWithPath: "/tmp")
            let names = [
                "", ".", "..", "a/b", "../escape", "nul\u{0}byte", "bell\u{7}", "del\u{7F}", "NSGlobalDomain",
                ".GlobalPreferences", "kCFPreferencesAnyApplication", String(repeating: "x", count: 201),
                String(repeating: "\u{E9}", count: 101),
            ]
            for name in names {
                #expect(throws: DefaultsError.self, "\(name.debugDescription) was accepted") {
                    try FileStore.suite(name, directory: directory)
                }
            }
            let directories = [
                URL(string: "https://example.com/settings")!, URL(string: "file:relative/path")!,
                URL(fileURLWithPath: "/tmp/line\nbreak"),
                URL(fileURLWithPath: "/" + String(repeating: "d/", count: Int(PATH_MAX) / 2)),
            ]
            for directory in directories {
                #expect(throws: DefaultsError.self, "\(directory) was accepted") {
                    try FileStore.suite("fine", directory: directory)
                }
            }
        }

        // MARK: Snapshots against another process
        #endif

        @Test("a snapshot never mixes two states of a file another process rewrites", .needsFileStore)
        func snapshotAgainstAnotherProcess() throws {
            let suite = IsolatedSuite()
            let defaults = suite.adapter
            try defaults.modifyStoredValues { $0 = ["host": .string("server0"), "port": .integer(0)] }
            let rounds = 8
            let done = Locked(false)
            let checked = Locked(0)
            let mixed = Locked<[[String: PropertyListValue]]>([])
            let reader = Thread {
                while !done.withLock({ $0 }) {
                    let values = defaults.snapshot().storedValues
                    if case .integer(let port)? = values["port"], values["host"] != .string("server\(port)") {
                        mixed.withLock { $0.append(values) }
                    }
                    checked.withLock { $0 += 1 }
                }
            }
            reader.start()
            defer { done.withLock { $0 = true } }
            for round in 1...rounds {
                let values: [String: PropertyListValue] = [
                    "host": .string("server\(round)"), "port": .integer(Int64(round)),
                ]
                let input = suite.directory.url.appendingPathComponent("round.plist")
                try PropertyListXML.data(values).write(to: input)
                let result = try Helper.run(
                    ["import", suite.name, input.path],
                    configDirectory: suite.directory.url,
                    program: Helper.tool
                )
                #expect(result.status == 0, "\(result.errors)")
            }
            #expect(eventually { defaults.snapshot().storedValues["port"] == .integer(Int64(rounds)) })
            #expect(checked.withLock { $0 } > 0)
            #expect(mixed.withLock { $0 }.isEmpty, "snapshots mixed two states: \(mixed.withLock { $0.prefix(3) })")
        }
    }
}
