import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

@Suite("Adapter")
struct AdapterTests {
    @Test("key-path subscripts mutate in place and write through to the file")
    func keyPathSubscript() throws {
        let suite = IsolatedSuite()
        let defaults = suite.adapter
        defaults[\.launchCount] += 1
        defaults[\.launchCount] += 1
        #expect(defaults[\.launchCount] == 2)
        // On disk when the setter returns, with no synchronize() from the caller.
        #expect(try suite.fileContents()["launchCount"] as? Int == 2)
    }

    @Test("dynamic members read and write like properties")
    func dynamicMembers() throws {
        let suite = IsolatedSuite()
        let defaults = suite.adapter
        #expect(defaults.volume == 0.5)
        defaults.volume -= 0.1
        #expect(defaults.volume == 0.4)
        defaults.theme = .dark
        defaults.username = "ann"
        #expect(defaults.theme == .dark)
        #expect(defaults.username == "ann")
        let file = try suite.fileContents()
        #expect(file["theme"] as? String == "dark")
        #expect(file["volume"] as? Double == 0.4)
    }

    @Test("collections mutate in place")
    func appendInPlace() {
        let suite = IsolatedSuite()
        let defaults = suite.adapter
        defaults[\.recentFiles].append(URL(fileURLWithPath: "/tmp/a.txt"))
        defaults[\.recentFiles].append(URL(string: "https://example.com/b?c=1#d")!)
        #expect(
            defaults.recentFiles == [URL(fileURLWithPath: "/tmp/a.txt"), URL(string: "https://example.com/b?c=1#d")!]
        )
        defaults.profile = Profile(name: "Ann", tags: [], joined: Date(timeIntervalSinceReferenceDate: 1.25))
        defaults.profile?.tags.append("new")
        #expect(defaults.profile?.tags == ["new"])
    }

    @Test("a key need not live in DefaultsKeys")
    func freeStandingKey() {
        let suite = IsolatedSuite()
        let defaults = suite.adapter
        let flag = Key<Bool>("flag", default: false)
        #expect(defaults[key: flag] == false)
        defaults[key: flag] = true
        #expect(defaults[key: flag] == true)
    }

    @Test("UserDefaults[key] and an adapter over a UserDefaults instance write through Foundation")
    func userDefaultsInstance() throws {
        let suite = IsolatedSuite()
        let foundation = suite.foundationDefaults()
        let flag = Key<Bool>("flag", default: false)
        foundation[flag] = true
        #expect(foundation[flag] == true)
        #expect(foundation.bool(forKey: "flag"))

        let defaults = DefaultsAdapter(defaults: foundation, keyStore: DefaultsKeys())
        defaults.launchCount = 12
        #expect(foundation.integer(forKey: "launchCount") == 12)
        #expect(defaults.hasKey(\.launchCount))
        // Written through to the file, where a suite opened by name reads it.
        let file = try suite.fileContents()
        #expect(file["flag"] as? Bool == true)
        #expect(file["launchCount"] as? Int == 12)
        #expect(suite.adapter.launchCount == 12)

        defaults.removeAll()
        #expect(!defaults.hasKey(\.launchCount))
        #expect(foundation.object(forKey: "flag") == nil)
    }

    @Test("hasKey answers for stored values only; reset brings the default back")
    func hasKeyAndReset() throws {
        let suite = IsolatedSuite()
        let defaults = suite.adapter
        #expect(!defaults.hasKey(\.launchCount))
        #expect(defaults.launchCount == 0)
        defaults.launchCount = 0
        #expect(defaults.hasKey(\.launchCount), "storing the default value still stores it")
        defaults.launchCount = 5
        defaults.reset(\.launchCount)
        #expect(!defaults.hasKey(\.launchCount))
        #expect(defaults.launchCount == 0)
    }

    @Test("an optional with a non-nil default reads the default after nil is written")
    func optionalWithDefault() {
        let suite = IsolatedSuite()
        let defaults = suite.adapter
        #expect(defaults.ratio == 1.5)
        defaults.ratio = 0.25
        #expect(defaults.ratio == 0.25)
        defaults.ratio = nil
        #expect(!defaults.hasKey(\.ratio))
        #expect(defaults.ratio == 1.5)
    }

    @Test("removeAll removes every stored key, declared or not")
    func removeAll() throws {
        let suite = IsolatedSuite()
        suite.adapter.launchCount = 3
        suite.adapter.username = "ann"
        suite.foundationDefaults().set("other code", forKey: "undeclared")
        suite.adapter.removeAll()
        #expect(!suite.adapter.hasKey(\.launchCount))
        #expect(!suite.adapter.hasKey(Key<String?>("undeclared")))
        #expect(suite.adapter.username == nil)
        let remaining = (try? suite.fileContents()) ?? [:]
        #expect(remaining.isEmpty)
    }

    @Test("defaults live with the key, per suite: Foundation's registration domain is never used")
    func defaultsDoNotLeak() throws {
        let suite = IsolatedSuite()
        let other = IsolatedSuite()
        #expect(suite.adapter.volume == 0.5)
        #expect(suite.adapter[key: Key<String>("greeting", default: "hello")] == "hello")
        #expect(other.foundationDefaults().object(forKey: "volume") == nil)
        #expect(other.foundationDefaults().object(forKey: "greeting") == nil)
        #expect(UserDefaults(suiteName: other.name)!.volatileDomain(forName: UserDefaults.registrationDomain).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: suite.fileURL.path), "reading a default writes nothing")
    }

    @Test("several adapters with their own key stores coexist")
    func severalKeyStores() throws {
        let app = IsolatedSuite()
        let plugin = try IsolatedSuite().secondAdapter(keyStore: PluginKeys())
        #expect(plugin.launchCount == 100)
        plugin.launchCount += 1
        app.adapter.launchCount = 7
        #expect(plugin.launchCount == 101)
        #expect(app.adapter.launchCount == 7)

        // Two key stores on one suite address the same stored value by name.
        let sameSuite = try app.secondAdapter(keyStore: PluginKeys())
        #expect(sameSuite.launchCount == 7)
    }

    @Test("the in-memory store has the same API and stores the same forms")
    func inMemoryStore() throws {
        let store = InMemoryStore()
        let defaults = DefaultsAdapter(store: store, keyStore: DefaultsKeys())
        defaults[\.launchCount] += 1
        defaults.theme = .dark
        defaults.username = "ann"
        defaults.username = nil
        #expect(store.storedValues == ["launchCount": .integer(1), "theme": .string("dark")])
        #expect(defaults.hasKey(\.theme))
        #expect(throws: DefaultsError.self) { try defaults.set([1, nil], for: Key<[Int?]>("holes", default: [])) }
        defaults.removeAll()
        #expect(store.storedValues.isEmpty)

        let seeded = DefaultsAdapter(store: InMemoryStore(["volume": .double(0.9)]), keyStore: DefaultsKeys())
        #expect(seeded.volume == 0.9)
    }
}

@Suite("Decoded values")
struct DecodedValueTests {
    @Test("a value kept decoded is never read stale: writes here, in the file, and by another adapter", .needsFileStore)
    func neverStale() throws {
        let suite = IsolatedSuite()
        let first = Profile(name: "Ann", tags: [], joined: Date(timeIntervalSinceReferenceDate: 1.5))
        suite.adapter.profile = first
        #expect(suite.adapter.profile == first)
        #expect(suite.adapter.profile == first, "the second read is served from the kept value")

        let second = Profile(name: "Bo", tags: ["x"], joined: Date(timeIntervalSinceReferenceDate: 2.5))
        try suite.secondAdapter(keyStore: DefaultsKeys()).set(second, for: \.profile)
        #expect(suite.adapter.profile == second)

        // Another program rewrites the file.
        let third = Profile(name: "Cy", tags: [], joined: Date(timeIntervalSinceReferenceDate: 3.5))
        let json = try #require(CodableBridge<Profile>().serialize(third)?.stringValue)
        try PropertyListSerialization.data(fromPropertyList: ["profile": json], format: .xml, options: 0)
            .write(to: suite.fileURL)
        #expect(eventually { suite.adapter.profile == third })

        suite.adapter.profile = nil
        #expect(suite.adapter.profile == nil)
    }
}
