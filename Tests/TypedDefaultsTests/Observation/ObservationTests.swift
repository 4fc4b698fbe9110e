import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// Collects what callbacks receive, from any thread.
final class Recorder<Item: Sendable>: Sendable {
    private let items = Locked<[Item]>([])
    func append(_ item: Item) { items.withLock { $0.append(item) } }
    var all: [Item] { items.withLock { $0 } }
    var count: Int { items.withLock { $0.count } }
}

/// Lets some time pass for events that must not come.
private func settle() { usleep(150_000) }

@Suite("Observation")
struct ObservationTests {
    @Test("an observer gets the typed old and new value once per actual change")
    func typedChanges() throws {
        let suite = IsolatedSuite()
        let changes = Recorder<DefaultsChange<Theme>>()
        let token = suite.adapter.observe(\.theme) { changes.append($0) }
        suite.adapter.theme = .dark
        suite.adapter.theme = .dark  // equal: nothing
        suite.adapter.theme = .light
        #expect(eventually { changes.count == 2 })
        settle()
        #expect(changes.all.map(\.oldValue) == [.system, .dark])
        #expect(changes.all.map(\.newValue) == [.dark, .light])
        #expect(changes.all.allSatisfy { $0.key == "theme" })
        token.invalidate()
    }

    @Test("options: [.initial] delivers the current value first")
    func initialValue() {
        let suite = IsolatedSuite()
        suite.adapter.volume = 0.25
        let changes = Recorder<DefaultsChange<Double>>()
        let token = suite.adapter.observe(\.volume, options: [.initial]) { changes.append($0) }
        #expect(eventually { changes.count == 1 })
        #expect(changes.all.first?.newValue == 0.25)
        #expect(changes.all.first?.oldValue == 0.25)
        token.invalidate()
    }

    @Test("writes through another adapter, reset, removeAll and modify are reported")
    func everyKindOfWrite() throws {
        let suite = IsolatedSuite(writePolicy: .coalesced)
        let other = try suite.secondAdapter(keyStore: DefaultsKeys())
        let changes = Recorder<DefaultsChange<Int>>()
        let token = suite.adapter.observe(\.launchCount) { changes.append($0) }
        other.launchCount = 5
        suite.adapter.reset(\.launchCount)
        try suite.adapter.modify(\.launchCount) { $0 += 3 }
        suite.adapter.removeAll()
        #expect(eventually { changes.count == 4 })
        #expect(changes.all.map(\.newValue) == [5, 0, 3, 0])
        #expect(changes.all.map(\.oldValue) == [0, 5, 0, 3])
        token.invalidate()
    }

    @Test("another process's write is reported, typed, through the file watch", .needsFileStore)
    func otherProcess() throws {
        let suite = IsolatedSuite()
        suite.adapter.username = "here"
        let changes = Recorder<DefaultsChange<String?>>()
        let token = suite.adapter.observe(\.username) { changes.append($0) }
        let run = try Helper.run(["exit-call", suite.name, "username", "there"], configDirectory: suite.directory.url)
        #expect(run.status == 0)
        #expect(eventually { changes.count == 1 })
        #expect(changes.all.first?.oldValue == "here")
        #expect(changes.all.first?.newValue == "there")
        #if !TYPED_DEFAULTS_FOUNDATION_STORAGE
        #expect(
            DirectoryWatcher.shared.isWatching(directory: suite.directory.url.path, fileName: suite.name + ".plist")
        )
        token.invalidate()
        #expect(
            !DirectoryWatcher.shared.isWatching(directory: suite.directory.url.path, fileName: suite.name + ".plist")
        )
        #endif
    }

    @Test(
        "a change made by hand to the file is reported; a damaged value is a diagnostic, not an event",
        .needsFileStore
    )
    func handEdits() throws {
        let suite = IsolatedSuite()
        suite.adapter.launchCount = 1
        let changes = Recorder<DefaultsChange<Int>>()
        let token = suite.adapter.observe(\.launchCount) { changes.append($0) }

        // An editor that rewrites the file in place.
        try PropertyListSerialization.data(fromPropertyList: ["launchCount": 2], format: .xml, options: 0)
            .write(to: suite.fileURL)
        #expect(eventually { changes.count == 1 })
        #expect(changes.all.last?.newValue == 2)

        try PropertyListSerialization.data(fromPropertyList: ["launchCount": "lots"], format: .xml, options: 0)
            .write(to: suite.fileURL)
        #expect(eventually { suite.diagnostics.contains { $0.kind == .storedValueMismatch } })
        // A later write is announced after anything the damaged value could have caused, on the same queue.
        // (A change away from a value that does not decode is not announced either, so the file is made
        // readable first.)
        try PropertyListSerialization.data(fromPropertyList: ["launchCount": 3], format: .xml, options: 0)
            .write(to: suite.fileURL)
        #expect(eventually { suite.adapter.launchCount == 3 })
        suite.adapter.launchCount = 4
        #expect(eventually { changes.all.last?.newValue == 4 })
        #expect(changes.all.first?.newValue == 2)
        #expect(!changes.all.contains { $0.oldValue == 0 || $0.newValue == 0 }, "no bogus change to the default")
        token.invalidate()
    }

    @Test("a callback may read and write its own key without deadlock or endless recursion")
    func callbackWritesItsOwnKey() {
        let suite = IsolatedSuite()
        let defaults = suite.adapter
        let calls = Recorder<Int>()
        // Clamps the count to 10: the clamped write causes one more call, which writes an equal value.
        let token = defaults.observe(\.launchCount) { change in
            calls.append(change.newValue)
            if defaults.launchCount > 10 { defaults.launchCount = 10 }
        }
        defaults.launchCount = 50
        #expect(eventually { calls.count == 2 })
        settle()
        #expect(calls.all == [50, 10])
        #expect(defaults.launchCount == 10)
        token.invalidate()
    }

    @Test("10 observers of one key each see every change once")
    func manyObservers() {
        let suite = IsolatedSuite()
        let recorders = (0..<10).map { _ in Recorder<Int>() }
        let tokens = recorders.map { recorder in suite.adapter.observe(\.launchCount) { recorder.append($0.newValue) } }
        for value in 1...5 { suite.adapter.launchCount = value }
        #expect(eventually { recorders.allSatisfy { $0.count == 5 } })
        settle()
        #expect(recorders.allSatisfy { $0.all == [1, 2, 3, 4, 5] })
        #expect(suite.adapter.store.changes.observerCount == 10)
        for token in tokens { token.invalidate() }
        #expect(suite.adapter.store.changes.observerCount == 0)
    }

    @Test("100 concurrent writers: the changes arrive as one unbroken chain, ending at the stored value")
    func concurrentWriters() async {
        let suite = IsolatedSuite(writePolicy: .coalesced)
        let defaults = suite.adapter
        let changes = Recorder<DefaultsChange<Int>>()
        let token = defaults.observe(\.launchCount) { changes.append($0) }
        await withTaskGroup(of: Void.self) { group in
            for writer in 1...100 { group.addTask { defaults.launchCount = writer } }
        }
        #expect(await eventually { changes.all.last?.newValue == defaults.launchCount })
        settle()
        let chain = changes.all
        #expect(!chain.isEmpty && chain.count <= 100)
        #expect(chain.first?.oldValue == 0)
        #expect(zip(chain, chain.dropFirst()).allSatisfy { $0.newValue == $1.oldValue }, "in order, none lost")
        token.invalidate()
    }

    @Test("updates: the current value first, then each change; cancelling the task ends the sequence")
    func asyncUpdates() async throws {
        let suite = IsolatedSuite()
        let defaults = suite.adapter
        defaults.volume = 0.1
        let received = Recorder<Double>()
        let task = Task {
            for await volume in defaults.updates(\.volume) { received.append(volume) }
            return "ended"
        }
        #expect(await eventually { received.count == 1 })
        defaults.volume = 0.2
        defaults.volume = 0.3
        #expect(await eventually { received.count == 3 })
        #expect(received.all == [0.1, 0.2, 0.3])
        task.cancel()
        #expect(await task.value == "ended")
        #expect(await eventually { defaults.store.changes.observerCount == 0 })
    }

    @Test("withoutPropagation: changes made inside announce nothing")
    func withoutPropagation() {
        let suite = IsolatedSuite()
        let defaults = suite.adapter
        let changes = Recorder<Int>()
        let token = defaults.observe(\.launchCount) { changes.append($0.newValue) }
        defaults.withoutPropagation {
            defaults.launchCount = 1
            defaults.launchCount = 2
        }
        defaults.launchCount = 3
        #expect(eventually { changes.count == 1 })
        settle()
        #expect(changes.all == [3])
        token.invalidate()
    }

    @Test("withoutPropagation covers its own thread only: a write from a task it starts is announced")
    func withoutPropagationLeavesTasksAnnounced() async {
        let suite = IsolatedSuite()
        let defaults = suite.adapter
        let changes = Recorder<Int>()
        let token = defaults.observe(\.launchCount) { changes.append($0.newValue) }
        let task = defaults.withoutPropagation {
            defaults.launchCount = 1
            return Task { defaults.launchCount = 2 }
        }
        await task.value
        #expect(await eventually { changes.count == 1 })
        #expect(changes.all == [2])
        token.invalidate()
    }

    @Test("an observation ends when its token is released, or with the object it is tied to")
    func lifetimes() {
        let suite = IsolatedSuite()
        let defaults = suite.adapter
        let changes = Recorder<Int>()
        do {
            _ = defaults.observe(\.launchCount) { changes.append($0.newValue) }  // released at once
        }
        final class Owner {}
        var owner: Owner? = Owner()
        defaults.observe(\.launchCount) { changes.append($0.newValue * 100) }.tieToLifetime(of: owner!)
        defaults.launchCount = 1
        #expect(eventually { changes.count == 1 })
        #expect(changes.all == [100], "the tied observation runs without its token; the released one does not")
        owner = nil
        defaults.launchCount = 2
        settle()
        #expect(changes.all == [100])
        #expect(eventually { defaults.store.changes.observerCount == 0 })
    }

    @Test("100,000 observe and invalidate cycles leave no observer and no watch behind")
    func noLeaks() {
        let suite = IsolatedSuite()
        let defaults = suite.adapter
        for _ in 0..<100_000 {
            defaults.observe(\.launchCount) { _ in }.invalidate()
        }
        #expect(defaults.store.changes.observerCount == 0)
        #if !TYPED_DEFAULTS_FOUNDATION_STORAGE
        #expect(
            !DirectoryWatcher.shared.isWatching(directory: suite.directory.url.path, fileName: suite.name + ".plist")
        )
        #endif
    }

    @Test("a file damaged by another program is a diagnostic, not a change back to defaults", .needsFileStore)
    func damagedFileIsNoChange() throws {
        let suite = IsolatedSuite()
        suite.adapter.launchCount = 4
        let changes = Recorder<Int>()
        let token = suite.adapter.observe(\.launchCount) { changes.append($0.newValue) }
        try Data("garbage".utf8).write(to: suite.fileURL)
        #expect(eventually { suite.diagnostics.contains { $0.kind == .damagedFile } })
        #expect(suite.adapter.launchCount == 4, "the last good copy")
        // A later write is announced after anything the damage could have caused, on the same queue.
        suite.adapter.launchCount = 5
        #expect(eventually { changes.all.last == 5 })
        #expect(changes.all == [5], "the damaged file announced no change")
        token.invalidate()
    }

    @Test("callbacks run on the queue the observer chooses")
    func chosenQueue() {
        let suite = IsolatedSuite()
        let queue = DispatchQueue(label: "chosen")
        let marker = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: marker, value: true)
        let onQueue = Recorder<Bool>()
        let token = suite.adapter.observe(\.launchCount, queue: queue) { _ in
            onQueue.append(DispatchQueue.getSpecific(key: marker) == true)
        }
        suite.adapter.launchCount = 1
        #expect(eventually { onQueue.all == [true] })
        token.invalidate()
    }

    @Test("several keys, one callback")
    func severalKeys() {
        let suite = IsolatedSuite()
        let calls = Recorder<Bool>()
        let token = suite.adapter.observe(keys: \.theme, \.volume) { calls.append(true) }
        suite.adapter.theme = .dark
        suite.adapter.volume = 0.9
        suite.adapter.launchCount = 4  // not observed
        #expect(eventually { calls.count == 2 })
        settle()
        #expect(calls.count == 2)
        token.invalidate()
    }

    @Test("the in-memory store is observable too")
    func inMemory() {
        let defaults = DefaultsAdapter(store: InMemoryStore(), keyStore: DefaultsKeys())
        let changes = Recorder<Int>()
        let token = defaults.observe(\.launchCount) { changes.append($0.newValue) }
        defaults.launchCount = 7
        #expect(eventually { changes.all == [7] })
        token.invalidate()
    }
}

@Suite("Property wrapper")
struct DefaultPropertyWrapperTests {
    struct Settings {
        @Default var count: Int
        @Default var cachedCount: Int
        @Default var observedCount: Int

        init(_ defaults: DefaultsAdapter<DefaultsKeys>) {
            _count = Default(\.launchCount, adapter: defaults)
            _cachedCount = Default(\.launchCount, adapter: defaults, options: [.cached])
            _observedCount = Default(
                \.launchCount,
                adapter: defaults,
                options: (Spellings() as any ObservedSpelling).observed
            )
        }
    }

    /// Names `.observed` without a deprecation warning (the tests build with warnings as errors): the deprecated
    /// witness is reached through its protocol's requirement.
    protocol ObservedSpelling {
        var observed: DefaultOptions { get }
    }

    struct Spellings: ObservedSpelling {
        /// SwiftyUserDefaults' spelling, which still compiles and still caches.
        @available(*, deprecated)
        var observed: DefaultOptions { [.cached, .observed] }
    }

    @Test("reads and writes the key; a cached value follows every change of the key, however made")
    func wrapper() throws {
        let suite = IsolatedSuite()
        let settings = Settings(suite.adapter)
        // Made from an adapter of its own, whose cache only the store's announcements reach.
        let elsewhere = Default(
            \.launchCount,
            adapter: try suite.secondAdapter(keyStore: DefaultsKeys()),
            options: .cached
        )
        settings.count = 3
        #expect(suite.adapter.launchCount == 3)
        #expect(settings.cachedCount == 3)
        #expect(settings.observedCount == 3)
        #expect(elsewhere.wrappedValue == 3)

        // Another process changes the key.
        let run = try Helper.run(
            ["exit-call", suite.name, "launchCount", "unused"],
            configDirectory: suite.directory.url
        )
        #expect(run.status == 0)
        suite.adapter.launchCount = 8
        #expect(settings.count == 8)
        #expect(elsewhere.wrappedValue == 8, "a cached value follows a change made through another adapter")
        #expect(settings.cachedCount == 8, "a write through the wrapper's own adapter drops its cached value")
        #expect(eventually { settings.observedCount == 8 })
    }

    @Test("the projected value observes the key")
    func projectedValue() {
        let suite = IsolatedSuite()
        let settings = Settings(suite.adapter)
        let changes = Recorder<Int>()
        let token = settings.$count.observe { changes.append($0.newValue) }
        settings.count = 11
        #expect(eventually { changes.all == [11] })
        token.invalidate()
    }

    @Test("@Default(\\.key) on the global Defaults, in a real process")
    func globalDefaults() throws {
        let directory = TemporaryConfigDirectory()
        let first = try Helper.run(["wrapper"], configDirectory: directory.url)
        #expect(first.status == 0, "\(first.errors)")
        #expect(first.settings["theme"] == "dark")
        #expect(first.settings["cached"] == "dark")
        let second = try Helper.run(["wrapper"], configDirectory: directory.url)
        #expect(second.settings["before"] == "dark")
    }
}
