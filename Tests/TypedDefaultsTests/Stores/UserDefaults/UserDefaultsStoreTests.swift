import Foundation
import Testing

@testable import TypedDefaults

/// The store behind `Defaults` and suites by name on Apple platforms, run here on Linux's Foundation: one
/// store per suite, the domain's own values, other processes' changes announced once, and what Foundation on
/// Linux cannot keep refused.
@Suite("UserDefaults store")
struct UserDefaultsStoreTests {
    /// A suite kept by Foundation in a temporary directory (a name the tests map to a path there).
    final class FoundationSuite: Sendable {
        let name = "tests.\(UUID().uuidString)"
        let directory = TemporaryConfigDirectory()
        let store: UserDefaultsStore

        init() throws {
            UserDefaultsStore.testLocations.withLock { [name, directory] in
                $0.suites[name] = directory.url.path + "/" + name
            }
            store = try UserDefaultsStore.suite(name)
        }

        /// Another `UserDefaults` instance on the suite, as another part of the program (or, on Apple
        /// platforms, another process through cfprefsd) would write it.
        func otherInstance() throws -> UserDefaults {
            try #require(UserDefaults(suiteName: directory.url.path + "/" + name))
        }
    }

    @Test("one store per suite name, so every adapter hears the others' writes; bad names get a typed error")
    func oneStorePerSuite() throws {
        let suite = try FoundationSuite()
        #expect(try UserDefaultsStore.suite(suite.name) === suite.store)
        let first = DefaultsAdapter(store: suite.store, keyStore: DefaultsKeys())
        let second = DefaultsAdapter(store: try UserDefaultsStore.suite(suite.name), keyStore: DefaultsKeys())
        let heard = Recorder<DefaultsChange<Int>>()
        let token = second.observe(\.launchCount) { heard.append($0) }
        first.launchCount = 3
        #expect(eventually { heard.count == 1 })
        #expect(heard.all.first?.newValue == 3)
        token.invalidate()

        for name in ["", "a/b", "..", "NSGlobalDomain", String(repeating: "x", count: 300)] {
            #expect {
                try UserDefaultsStore.suite(name)
            } throws: { error in
                guard case .invalidSuiteName? = error as? DefaultsError else { return false }
                return true
            }
        }
    }

    @Test(
        "in a program without a bundle identifier, the suite named after the process is .standard's store",
        .enabled(if: Bundle.main.bundleIdentifier == nil, "this process has a bundle identifier")
    )
    func processNameIsStandard() throws {
        #expect(try UserDefaultsStore.suite(ProcessInfo.processInfo.processName) === UserDefaultsStore.standard)
    }

    @Test("a snapshot holds the suite's values, whichever instance wrote them")
    func snapshotIsTheDomain() throws {
        let suite = try FoundationSuite()
        _ = try suite.store.apply(DefaultsBatch(writes: ["own": .integer(1)]))
        try suite.otherInstance().set("other", forKey: "theirs")
        #expect(suite.store.snapshot() == ["own": .integer(1), "theirs": .string("other")])
        #expect(suite.store.value(forKey: "theirs") == .string("other"))
    }

    @Test("a change Foundation reports (key-value observing on Apple platforms) is announced once, typed")
    func externalChangesAnnouncedOnce() throws {
        let suite = try FoundationSuite()
        let defaults = DefaultsAdapter(store: suite.store, keyStore: DefaultsKeys(), writePolicy: .immediate)
        defaults.username = "here"
        let heard = Recorder<DefaultsChange<String?>>()
        let token = defaults.observe(\.username) { heard.append($0) }
        #expect(suite.store.changes.observedKeys == ["username"])

        // Another writer changes the key; Foundation names it, twice, as it may.
        try suite.otherInstance().set("there", forKey: "username")
        suite.store.noticeChange(ofKey: "username")
        suite.store.noticeChange(ofKey: "username")
        #expect(eventually { heard.count == 1 })
        #expect(heard.all.first?.oldValue == "here")
        #expect(heard.all.first?.newValue == "there")

        // This process's own write is announced by the write, and not again when Foundation names the key.
        defaults.username = "mine"
        suite.store.noticeChange(ofKey: "username")
        #expect(eventually { heard.count == 2 })
        #expect(!eventually(within: .milliseconds(300)) { heard.count > 2 })
        #expect(heard.all.last?.newValue == "mine")

        // A key nobody observes is not rechecked.
        try suite.otherInstance().set(5, forKey: "launchCount")
        suite.store.noticeChange(ofKey: "launchCount")
        token.invalidate()
        #expect(suite.store.changes.observedKeys.isEmpty)
        #expect(heard.count == 2)
    }

    @Test("keys are watched one by one while observed, never with a '.' or '@' (key-value observing paths)")
    func watchedKeys() {
        #expect(UserDefaultsStore.isObservableByKeyValueObserving("theme"))
        #expect(!UserDefaultsStore.isObservableByKeyValueObserving("window.frame"))
        #expect(!UserDefaultsStore.isObservableByKeyValueObserving("@count"))
        #expect(!UserDefaultsStore.isObservableByKeyValueObserving(""))
    }

    @Test("integers reach Foundation as 64-bit numbers, never through Int (32 bits on watchOS), and come back exact")
    func sixtyFourBitIntegers() throws {
        let extremes: [Int64] = [.max, .min, Int64(Int32.max) + 1, Int64(Int32.min) - 1, 0]
        for value in extremes {
            let object = PropertyListValue.integer(value).foundationObject
            #expect(type(of: object) is NSNumber.Type, "\(value) reaches Foundation as \(type(of: object))")
            let number = try #require(object as? NSNumber)
            #expect(number.int64Value == value)
        }

        let suite = try FoundationSuite()
        let written = Dictionary(uniqueKeysWithValues: extremes.map { ("\($0)", PropertyListValue.integer($0)) })
        _ = try suite.store.apply(DefaultsBatch(writes: written))
        try suite.store.flush()
        let other = try suite.otherInstance()
        for value in extremes {
            #expect((other.object(forKey: "\(value)") as? NSNumber)?.int64Value == value)
            #expect(suite.store.value(forKey: "\(value)") == .integer(value))
        }
        let data = try Data(contentsOf: suite.directory.plist(suite.name))
        let saved = try #require(PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        #expect((saved["\(Int64.max)"] as? NSNumber)?.int64Value == .max)
        #expect((saved["\(Int64.min)"] as? NSNumber)?.int64Value == .min)
    }

    @Test("flushAll makes every suite's writes durable")
    func flushAll() throws {
        let suite = try FoundationSuite()
        _ = try suite.store.apply(DefaultsBatch(writes: ["saved": .string("yes")]))
        // What `DefaultsShutdown.flushAll()` calls for these stores: the public call also flushes every other
        // store of the test process, which other tests hold or fail on purpose.
        if let error = UserDefaultsStore.flushAll() { throw error }
        let data = try Data(contentsOf: suite.directory.plist(suite.name))
        let values = try #require(PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        #expect(values["saved"] as? String == "yes")
    }
}
