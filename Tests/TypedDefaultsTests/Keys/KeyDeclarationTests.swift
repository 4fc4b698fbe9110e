import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

// Keys declared the second way: static properties of `Key`, read by member.
extension Key {
    fileprivate static var quality: Key<Double> { .init("quality", default: 0.8) }
    fileprivate static var nickname: Key<String?> { .init("nickname") }
    fileprivate static var tags: Key<[String]> { .init("tags", default: []) }
    fileprivate static var width: Key<Int> { .init("width", default: 640) }
    fileprivate static var height: Key<Int> { .init("height", default: 480) }
}

/// Counts the calls of a computed default, from any thread.
private final class Counter: Sendable {
    private let count = Locked(0)
    func next() -> Int {
        count.withLock { count in
            count += 1
            return count
        }
    }
}

@Suite("Key declarations")
struct KeyDeclarationTests {
    @Test("static-member keys read and write by member, through every entry point")
    func staticMemberKeys() throws {
        let suite = IsolatedSuite()
        let defaults = suite.adapter
        #expect(defaults[.quality] == 0.8)
        defaults[.quality] = 0.5
        defaults[.quality] += 0.25
        defaults[.nickname] = "ann"
        defaults[.tags].append("a")
        #expect(defaults[.quality] == 0.75)
        #expect(defaults[key: .quality] == 0.75)
        #expect(defaults.hasKey(.nickname))
        try defaults.modify(.width) { $0 *= 2 }
        let stored = try suite.fileContents()
        #expect(stored["quality"] as? Double == 0.75)
        #expect(stored["nickname"] as? String == "ann")
        #expect(stored["tags"] as? [String] == ["a"])
        #expect(stored["width"] as? Int == 1280)
    }

    @Test("a computed default runs on every read that finds nothing usable, and is never kept")
    func computedDefault() throws {
        let suite = IsolatedSuite()
        let counter = Counter()
        let key = Key<Int>("computed") { counter.next() }
        let list = Key<[Int]>("computedList") { [counter.next()] }
        #expect(suite.adapter[key] == 1)
        #expect(suite.adapter[key] == 2)
        #expect(suite.adapter[list] == [3])  // a costly bridge's read does not keep a default either
        #expect(suite.adapter[list] == [4])
        suite.adapter[key] = 10
        #expect(suite.adapter[key] == 10)
        #expect(suite.adapter[key] == 10)
        // A stored value of another type reads as the default, computed now.
        try suite.adapter.modifyStoredValues { $0["computed"] = .string("ten") }
        #expect(suite.adapter[key] == 5)
        suite.adapter.reset(key)
        #expect(suite.adapter[key] == 6)
        #expect(!suite.adapter.isDefaultValue(key))  // computed again for the comparison: 7 vs 8
        // `modify` starts from the default computed for it.
        #expect(try suite.adapter.modify(key) { $0 += 100 } == 109)
    }

    @Test("reset of several keys of different types is one write; isDefaultValue compares with the default")
    func resetSeveral() throws {
        let suite = IsolatedSuite()
        let defaults = suite.adapter
        defaults[.quality] = 0.1
        defaults[.nickname] = "ann"
        defaults[.width] = 1
        defaults[.height] = 2
        defaults.launchCount = 3
        defaults.volume = 0.9
        #expect(!defaults.isDefaultValue(.quality))
        #expect(!defaults.isDefaultValue(\.volume))
        let batches = Recorder<[String]>()
        let token = defaults.observeStoredValues { changes in batches.append(changes.map(\.key).sorted()) }
        defaults.reset(.quality, .nickname)
        defaults.reset([.width, .height])
        defaults.reset(\.launchCount, \.volume)
        #expect(eventually { batches.count == 3 })
        #expect(batches.all == [["nickname", "quality"], ["height", "width"], ["launchCount", "volume"]])
        #expect(defaults.isDefaultValue(.quality) && defaults.isDefaultValue(\.volume))
        // Foundation (the Apple path) deletes a suite's file once it is empty.
        #expect((try? suite.fileContents())?.isEmpty ?? true)
        // Storing the default's value is still the default value, though the key is stored.
        defaults[.quality] = 0.8
        #expect(defaults.isDefaultValue(.quality) && defaults.hasKey(.quality))
        token.invalidate()
    }

    @Test("a property's projected value resets its key and tells whether it reads the default")
    func propertyReset() {
        let suite = IsolatedSuite()
        let quality = Default(.quality, adapter: suite.adapter)
        #expect(quality.isDefaultValue)
        quality.wrappedValue = 0.3
        #expect(!quality.projectedValue.isDefaultValue && suite.adapter[.quality] == 0.3)
        quality.projectedValue.reset()
        #expect(quality.isDefaultValue && !suite.adapter.hasKey(.quality))
    }

    @Test("a key's own reset and isDefaultValue work on .standard, in a real process")
    func keyOnStandard() throws {
        let directory = TemporaryConfigDirectory()
        let first = try Helper.run(["static-key-standard"], configDirectory: directory.url)
        #expect(first.status == 0, "\(first.errors)")
        #expect(
            first.output == """
                before=0.8 default=true
                set=0.5 default=false
                reset=0.8 default=true stored=false

                """
        )
        #expect(try directory.contents(ofSuite: "TypedDefaultsTestHelper")["quality"] as? Double == 0.25)
        // The next process starts from what the last one left.
        let second = try Helper.run(["static-key-standard"], configDirectory: directory.url)
        #expect(second.output.hasPrefix("before=0.25 default=false\n"))
    }

    @Test("suite(_:) never fails: a name that cannot be used reads defaults and refuses writes with the reason")
    func nonThrowingSuite() throws {
        let bad = DefaultsAdapter.suite("../escape", keyStore: DefaultsKeys(), launchArguments: .ignored)
        #expect(bad.launchCount == 0)
        #expect(throws: DefaultsError.self) { try bad.set(1, for: \.launchCount) }
        #expect(throws: DefaultsError.self) { try bad.checkHealth() }
        #expect(bad.launchCount == 0)
    }
}
