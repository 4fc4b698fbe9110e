import Dispatch
import Foundation
import Observation
import Testing
import enum TypedDefaultsTestSupport.BuiltProducts

@testable import TypedDefaults

// The documented examples of sindresorhus/Defaults, written the way a user migrating from it writes them in
// TypedDefaults: keys are static members of `Key` (that library's users put them in `extension Defaults.Keys`),
// read with `Defaults[.name]`. `Defaults` is this module's shared suite (PeerScenarios.swift), never `.standard`:
// nothing here calls `key.reset()`, `key.isDefaultValue` or `@Default(.key)` without an adapter, which act on
// `.standard`.

extension Key {
    fileprivate static var quality: Key<Double> { .init("quality", default: 0.8) }
    fileprivate static var unicornName: Key<String?> { .init("name") }
    fileprivate static var duration: Key<DefaultsReadmeDuration> { .init("duration", default: .oneHour) }
    fileprivate static var codableDuration: Key<DefaultsReadmeCodableDuration> {
        .init("codableDuration", default: .oneHour)
    }
    fileprivate static var user: Key<DefaultsReadmeUser> { .init("user", default: .hello) }
    fileprivate static var hasUnicorn: Key<Bool> { .init("hasUnicorn", default: false) }
    fileprivate static var showAllDayEvents: Key<Bool> { .init("showAllDayEvents", default: false) }
    fileprivate static var isUnicornMode: Key<Bool> { .init("isUnicornMode", default: false) }
    fileprivate static var foo: Key<Int> { .init("foo", default: 0) }
    fileprivate static var bar: Key<String> { .init("bar", default: "") }
    fileprivate static var key1: Key<Int> { .init("key1", default: 0) }
    fileprivate static var key2: Key<Int> { .init("key2", default: 0) }
    fileprivate static var someKey: Key<Bool> { .init("someKey", default: false) }
    fileprivate static var isUnicorn: Key<Bool> { .init("isUnicorn", default: true) }
    fileprivate static var bridgedUser: Key<DefaultsReadmeBridgedUser> { .init("bridgedUser", default: .hello) }
    fileprivate static var bridgedUsers: Key<[DefaultsReadmeBridgedUser]> { .init("bridgedUsers", default: [.hello]) }
    fileprivate static var bridgedUserSet: Key<Set<DefaultsReadmeBridgedUser>> {
        .init("bridgedUserSet", default: [.hello])
    }
    fileprivate static var bridgedUserDictionary: Key<[String: DefaultsReadmeBridgedUser]> {
        .init("bridgedUserDictionary", default: ["user": .hello])
    }
    fileprivate static var mime: Key<DefaultsReadmeMime> { .init("mime", default: .json) }
    fileprivate static var userName: Key<String?> { .init("userName") }
    fileprivate static var theme: Key<String> { .init("theme", default: "light") }
    fileprivate static var counter: Key<Int> { .init("counter", default: 0) }
}

/// The peer's duration enum, stored by its raw value (it is not `Codable`).
enum DefaultsReadmeDuration: String, DefaultsSerializable {
    case tenMinutes = "10 Minutes"
    case halfHour = "30 Minutes"
    case oneHour = "1 Hour"
}

/// The same enum as an older README declared it, `Codable` as well: the peer then stored JSON text.
enum DefaultsReadmeCodableDuration: String, Codable, DefaultsSerializable {
    case tenMinutes = "10 Minutes"
    case halfHour = "30 Minutes"
    case oneHour = "1 Hour"
}

/// The peer's `Codable` user.
struct DefaultsReadmeUser: Codable, Equatable, Sendable, DefaultsSerializable {
    var name: String
    var age: String

    static let hello = DefaultsReadmeUser(name: "Hello", age: "24")
}

/// The peer's user with a bridge of its own, stored as a dictionary of two strings.
struct DefaultsReadmeBridgedUser: Hashable, Sendable, DefaultsSerializable {
    var name: String
    var age: String

    static let hello = DefaultsReadmeBridgedUser(name: "Hello", age: "24")
    static var bridge: DefaultsReadmeUserBridge { DefaultsReadmeUserBridge() }
}

/// Stores a user as `{name, age}`; a dictionary missing either reads as no user.
struct DefaultsReadmeUserBridge: DefaultsBridge {
    func serialize(_ user: DefaultsReadmeBridgedUser) -> PropertyListValue? {
        .dictionary(["name": .string(user.name), "age": .string(user.age)])
    }

    func deserialize(_ stored: PropertyListValue) -> DefaultsReadmeBridgedUser? {
        guard case .dictionary(let fields) = stored, let name = fields["name"]?.stringValue,
            let age = fields["age"]?.stringValue
        else { return nil }
        return DefaultsReadmeBridgedUser(name: name, age: age)
    }
}

/// The peer's MIME enum: a `String` raw value and `Codable` both.
enum DefaultsReadmeMime: String, Codable, Sendable, DefaultsSerializable {
    case json = "application/json"
    case stream = "application/octet-stream"
}

/// The same enum choosing JSON text, the form the peer writes for it without its opt-in.
enum DefaultsReadmeJSONMime: String, Codable, Sendable, DefaultsSerializable {
    case json = "application/json"

    static var bridge: CodableBridge<Self> { CodableBridge() }
}

/// An `NSSecureCoding` class, as the peer's older README stores one.
///
/// It holds a string, an integer and a Boolean. Top-level and internal: Foundation's archiver on Linux can
/// only name such classes.
final class DefaultsReadmeSecureObject: NSObject, NSSecureCoding, DefaultsSerializable {
    let text: String
    let number: Int
    let flag: Bool

    static var supportsSecureCoding: Bool { true }

    init(text: String, number: Int, flag: Bool) {
        self.text = text
        self.number = number
        self.flag = flag
    }

    init?(coder: NSCoder) {
        guard let text = coder.decodeObject(of: NSString.self, forKey: "text") else { return nil }
        self.text = text as String
        self.number = coder.decodeInteger(forKey: "number")
        self.flag = coder.decodeBool(forKey: "flag")
    }

    func encode(with coder: NSCoder) {
        coder.encode(text as NSString, forKey: "text")
        coder.encode(number, forKey: "number")
        coder.encode(flag, forKey: "flag")
    }
}

/// The peer's custom collection: a bag of elements, stored as an array of them.
struct DefaultsReadmeBag<Element>: Collection {
    var items: [Element]

    init(_ elements: [Element]) { items = elements }

    var startIndex: Int { items.startIndex }
    var endIndex: Int { items.endIndex }
    subscript(position: Int) -> Element { items[position] }
    func index(after index: Int) -> Int { items.index(after: index) }
}

extension DefaultsReadmeBag: DefaultsSerializable, DefaultsCollectionSerializable
where Element: DefaultsSerializable {}

/// The peer's custom set algebra, stored as an array of its elements.
struct DefaultsReadmeSetBag<Element: Hashable>: SetAlgebra {
    var elements = Set<Element>()

    init() {}
    init(elements: Set<Element>) { self.elements = elements }

    func contains(_ member: Element) -> Bool { elements.contains(member) }
    func union(_ other: Self) -> Self { Self(elements: elements.union(other.elements)) }
    func intersection(_ other: Self) -> Self { Self(elements: elements.intersection(other.elements)) }
    func symmetricDifference(_ other: Self) -> Self { Self(elements: elements.symmetricDifference(other.elements)) }
    @discardableResult
    mutating func insert(_ newMember: Element) -> (inserted: Bool, memberAfterInsert: Element) {
        elements.insert(newMember)
    }
    mutating func remove(_ member: Element) -> Element? { elements.remove(member) }
    mutating func update(with newMember: Element) -> Element? { elements.update(with: newMember) }
    mutating func formUnion(_ other: Self) { elements.formUnion(other.elements) }
    mutating func formIntersection(_ other: Self) { elements.formIntersection(other.elements) }
    mutating func formSymmetricDifference(_ other: Self) { elements.formSymmetricDifference(other.elements) }
}

extension DefaultsReadmeSetBag: DefaultsSerializable, DefaultsSetAlgebraSerializable
where Element: DefaultsSerializable {
    func toArray() -> [Element] { Array(elements) }
}

/// A class that is both `Codable` and `NSSecureCoding`: stored as JSON, as the peer stores it by default.
final class DefaultsReadmeNote: NSObject, NSSecureCoding, Codable, DefaultsSerializable {
    let text: String

    static var supportsSecureCoding: Bool { true }

    init(text: String) { self.text = text }

    init?(coder: NSCoder) {
        guard let text = coder.decodeObject(of: NSString.self, forKey: "text") else { return nil }
        self.text = text as String
    }

    func encode(with coder: NSCoder) { coder.encode(text as NSString, forKey: "text") }
}

/// The same class choosing the keyed archive, as the peer's opt-out protocol does.
final class DefaultsReadmeArchivedNote: NSObject, NSSecureCoding, Codable, DefaultsSerializable {
    let text: String

    static var supportsSecureCoding: Bool { true }
    static var bridge: SecureCodingBridge<DefaultsReadmeArchivedNote> { SecureCodingBridge() }

    init(text: String) { self.text = text }

    init?(coder: NSCoder) {
        guard let text = coder.decodeObject(of: NSString.self, forKey: "text") else { return nil }
        self.text = text as String
    }

    func encode(with coder: NSCoder) { coder.encode(text as NSString, forKey: "text") }
}

extension PeerScenarios {
    @Suite("sindresorhus/Defaults README")
    struct DefaultsReadme {
        init() {
            Defaults.removeAll()
        }

        // MARK: - Support

        /// Collects what callbacks receive, from any thread.
        final class Recorder<Item: Sendable>: Sendable {
            private let items = Locked<[Item]>([])
            func append(_ item: Item) { items.withLock { $0.append(item) } }
            var all: [Item] { items.withLock { $0 } }
            var count: Int { items.withLock { $0.count } }
        }

        /// Counts the calls of a computed default.
        final class Counter: Sendable {
            private let count = Locked(0)
            func next() -> Int {
                count.withLock { count in
                    count += 1
                    return count
                }
            }
        }

        /// What the shared suite's file holds (nothing yet: an empty dictionary).
        static func stored() throws -> [String: Any] {
            try Defaults.flush()
            guard FileManager.default.fileExists(atPath: ScenarioSuite.file.path) else { return [:] }
            return try ScenarioSuite.fileContents()
        }

        /// Another adapter on the shared suite, as an app extension opens the app group's suite by name.
        static func otherAdapter() throws -> DefaultsAdapter<DefaultsKeys> {
            try openSuite(ScenarioSuite.name)
        }

        /// A suite file the peer left behind: `values` written by Foundation's `UserDefaults` (the peer's own
        /// writer) into a new file in the scenarios' directory, which TypedDefaults then opens by name.
        static func suiteLeftByPeer(_ values: [String: Any]) throws -> (DefaultsAdapter<DefaultsKeys>, URL) {
            let name = "peer-defaults-\(UUID().uuidString)"
            let foundation = try #require(UserDefaults(suiteName: ScenarioSuite.directory.path + "/" + name))
            for (key, value) in values { foundation.set(value, forKey: key) }
            #expect(foundation.synchronize())
            return (try openSuite(name), ScenarioSuite.directory.appendingPathComponent(name + ".plist"))
        }

        /// The suite `<name>.plist` in the scenarios' directory, opened by TypedDefaults.
        static func openSuite(_ name: String) throws -> DefaultsAdapter<DefaultsKeys> {
            #if TYPED_DEFAULTS_FOUNDATION_STORAGE
            UserDefaultsStore.testLocations.withLock { $0.suites[name] = ScenarioSuite.directory.path + "/" + name }
            return try DefaultsAdapter(suiteName: name, keyStore: DefaultsKeys(), launchArguments: .ignored)
            #else
            return try DefaultsAdapter(
                suiteName: name,
                directory: ScenarioSuite.directory,
                keyStore: DefaultsKeys(),
                launchArguments: .ignored
            )
            #endif
        }

        /// What a property-list file holds, parsed by Foundation.
        static func contents(of file: URL) throws -> [String: Any] {
            let data = try Data(contentsOf: file)
            return try #require(PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        }

        /// Whether this build keeps suites in Foundation's `UserDefaults` (which on Linux is not told of other
        /// processes' changes).
        static let storesThroughFoundation: Bool = {
            #if TYPED_DEFAULTS_FOUNDATION_STORAGE
            true
            #else
            false
            #endif
        }()

        /// Runs the package's test helper as a child process on the scenarios' directory, where it opens the
        /// shared suite by its name.
        static func runHelper(_ arguments: [String]) throws -> Int32 {
            let process = Process()
            process.executableURL = BuiltProducts.executable("TypedDefaultsTestHelper")
            process.arguments = arguments
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_CONFIG_HOME"] = ScenarioSuite.directory.path
            environment["HOME"] = ScenarioSuite.directory.path
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }

        /// Waits, up to `timeout`, until `condition` holds; returns whether it did.
        static func eventually(within timeout: Duration = .seconds(10), _ condition: () -> Bool) -> Bool {
            let deadline = ContinuousClock.now + timeout
            while !condition() {
                guard ContinuousClock.now < deadline else { return false }
                usleep(5000)
            }
            return true
        }

        /// The same for async tests, sleeping without holding a thread of the shared pool.
        static func eventually(within timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
            let deadline = ContinuousClock.now + timeout
            while !condition() {
                guard ContinuousClock.now < deadline else { return false }
                try? await Task.sleep(for: .milliseconds(5))
            }
            return true
        }

        /// Lets some time pass for an event that must not come.
        static func settle() { usleep(150_000) }

        /// An identity of the calling thread.
        static func currentThread() -> UInt {
            UInt(bitPattern: Int(bitPattern: Unmanaged.passUnretained(Thread.current).toOpaque()))
        }

        // MARK: - Keys and values

        /// D1, the first example: a `Double` key declared as a static member.
        ///
        /// It reads its default on an empty suite, takes a plain write and an in-place `+=` through the
        /// subscript, and is stored as a real. The default stays with the key, so the file holds nothing for it
        /// before the first write (the peer keeps its default in Foundation's registration table, which is not
        /// in the file either). Assigning a value of another type does not compile, in both libraries.
        @Test("D1 a static-member Double key: default, write, in-place add, stored as a real")
        func declareAndRead() throws {
            #expect(Defaults[.quality] == 0.8)
            #expect(try Self.stored()["quality"] == nil)
            Defaults[.quality] = 0.5
            #expect(Defaults[.quality] == 0.5)
            Defaults[.quality] += 0.1
            #expect(Defaults[.quality] == 0.5 + 0.1)
            #expect(try Self.stored()["quality"] as? Double == 0.5 + 0.1)
        }

        /// D2: an optional key declared without a default reads `nil`, so an `if let` skips its body; after a
        /// write it reads the value, and writing `nil` removes the key from the file.
        @Test("D2 an optional key without a default: nil until written, nil again removes it")
        func optionalKey() throws {
            #expect(Defaults[.unicornName] == nil)
            var bodyRan = false
            if Defaults[.unicornName] != nil { bodyRan = true }
            #expect(!bodyRan)
            Defaults[.unicornName] = "Unicorn"
            #expect(Defaults[.unicornName] == "Unicorn")
            #expect(try Self.stored()["name"] as? String == "Unicorn")
            Defaults[.unicornName] = nil
            #expect(Defaults[.unicornName] == nil)
            #expect(try Self.stored()["name"] == nil)
        }

        /// D3: an enum with `String` raw values.
        ///
        /// An enum with `String` raw values reads its default case (whose raw value is "1 Hour") and is
        /// stored as the raw string itself, as the peer stores it. The older README's variant is also `Codable`,
        /// for which the peer stored the raw value as JSON text (in quotes): TypedDefaults reads that form as it
        /// is, and writes the plain raw value (the raw value wins over `Codable`, a deliberate difference).
        @Test("D3 a raw-value enum: default case, stored as its raw string; the peer's quoted form still reads")
        func rawValueEnum() throws {
            #expect(Defaults[.duration] == .oneHour)
            #expect(Defaults[.duration].rawValue == "1 Hour")
            Defaults[.duration] = .tenMinutes
            #expect(Defaults[.duration] == .tenMinutes)
            #expect(try Self.stored()["duration"] as? String == "10 Minutes")

            let (left, file) = try Self.suiteLeftByPeer(["codableDuration": "\"30 Minutes\""])
            #expect(left[.codableDuration] == .halfHour)
            left[.codableDuration] = .tenMinutes
            try left.flush()
            #expect(try Self.contents(of: file)["codableDuration"] as? String == "10 Minutes")
        }

        /// D4: a `Codable` struct reads its default's fields, and is stored as one line of JSON text with sorted
        /// keys, byte for byte what the peer's current versions write; JSON the peer's older versions wrote
        /// (keys in declaration order) reads as it is.
        @Test("D4 a Codable struct: default, stored as sorted-key JSON text; the peer's older JSON reads")
        func codableStruct() throws {
            #expect(Defaults[.user].name == "Hello")
            #expect(Defaults[.user] == .hello)
            Defaults[.user] = DefaultsReadmeUser(name: "Ann", age: "30")
            #expect(Defaults[.user].name == "Ann")
            #expect(try Self.stored()["user"] as? String == #"{"age":"30","name":"Ann"}"#)

            let (left, _) = try Self.suiteLeftByPeer(["user": #"{"name":"Bo","age":"41"}"#])
            #expect(left[.user] == DefaultsReadmeUser(name: "Bo", age: "41"))
        }

        /// D5: a key need not be a static member: a local constant key is read with the same subscript.
        @Test("D5 a key held in a local constant reads with the same subscript")
        func localKey() {
            let isUnicorn = Key<Bool>("isUnicorn", default: true)
            #expect(Defaults[isUnicorn])
            Defaults[isUnicorn] = false
            #expect(!Defaults[isUnicorn])
            #expect(!Defaults[.isUnicorn])  // the same name is the same setting
        }

        /// D6: a key whose default comes from a closure.
        ///
        /// A key whose default comes from a closure runs it on every read that finds nothing stored, so
        /// two reads see its latest result; a stored value wins over it; after a reset the closure is
        /// consulted again. Nothing about the default reaches the file.
        @Test("D6 a computed default: evaluated per read, beaten by a stored value, back after reset")
        func computedDefault() throws {
            let counter = Counter()
            let dynamic = Key<Int?>("dynamic") { counter.next() }
            #expect(Defaults[dynamic] == 1)
            #expect(Defaults[dynamic] == 2)
            #expect(try Self.stored()["dynamic"] == nil)
            Defaults[dynamic] = 10
            #expect(Defaults[dynamic] == 10)
            #expect(Defaults[dynamic] == 10)
            Defaults.reset(dynamic)
            #expect(Defaults[dynamic] == 3)
            #expect(try Self.stored()["dynamic"] == nil)
        }

        // MARK: - SwiftUI and the Observation framework (the parts that run without a UI)

        /// A view's settings as the peer's SwiftUI example holds them, on this module's shared suite.
        struct UnicornView {
            @Default(.hasUnicorn, adapter: Defaults) var hasUnicorn
        }

        /// D7: `@Default` in a view.
        ///
        /// Toggling the property writes the key; a reset makes it read `false` again and removes it from the
        /// file; a read of the property (as a view's `body` makes) is told when the key is changed elsewhere, here
        /// by another adapter on the suite. The wrapper has no `reset()` of its own: the reset goes through the
        /// adapter. The `Toggle` and its `Binding` need SwiftUI; on Apple platforms the binding is
        /// `$hasUnicorn.binding`.
        @Test("D7 @Default: toggling writes the key, a reset reads false, an outside change is announced")
        func defaultInView() throws {
            let view = UnicornView()
            #expect(!view.hasUnicorn)
            view.hasUnicorn.toggle()
            #expect(Defaults[.hasUnicorn])
            #expect(try Self.stored()["hasUnicorn"] as? Bool == true)
            Defaults.reset(.hasUnicorn)
            #expect(!view.hasUnicorn)
            #expect(try Self.stored()["hasUnicorn"] == nil)

            let changes = Recorder<Bool>()
            withObservationTracking {
                _ = view.hasUnicorn
            } onChange: {
                changes.append(true)
            }
            try Self.otherAdapter()[.hasUnicorn] = true
            #expect(Self.eventually { changes.count == 1 })
            #expect(view.hasUnicorn)
        }

        /// D8: the peer's toggle control, and its change closure.
        ///
        /// The peer's toggle control calls its change closure with the new value only when the value
        /// really changes. The control is SwiftUI; the rule it relies on holds for any observer here: writing
        /// the value already stored reports nothing.
        @Test("D8 a change handler hears each real change once, never a write of the same value")
        func toggleOnChange() {
            let values = Recorder<Bool>()
            let token = Defaults.observe(.showAllDayEvents, options: [.synchronous]) { values.append($0.newValue) }
            Defaults[.showAllDayEvents] = true
            Defaults[.showAllDayEvents] = true
            Defaults[.showAllDayEvents] = false
            #expect(values.all == [true, false])
            token.invalidate()
        }

        /// An `@Observable` model with a setting, as the peer's macro example declares one.
        @Observable
        final class UnicornModel {
            @ObservationIgnored @Default(.hasUnicorn, adapter: Defaults) var hasUnicorn
            var name = "Unicorn"
        }

        /// D9: an `@Observable` model whose property is backed by a key.
        ///
        /// An `@Observable` model whose property is backed by a key (the peer's `@ObservableDefault`; here
        /// `@ObservationIgnored @Default`, no macro package). Reads and writes go to the suite, and observation
        /// tracking of the property is told of writes through the model, through the suite directly, and (with
        /// the file store) by another process.
        @Test("D9 an @Observable model's setting: tracked through the model, the suite and another process")
        func observableModel() throws {
            let model = UnicornModel()
            let changes = Recorder<String>()
            func track() {
                withObservationTracking {
                    _ = (model.hasUnicorn, model.name)
                } onChange: {
                    changes.append("changed")
                }
            }
            track()
            model.hasUnicorn = true
            #expect(Self.eventually { changes.count == 1 })
            #expect(Defaults[.hasUnicorn])
            track()
            Defaults[.hasUnicorn] = false
            #expect(Self.eventually { changes.count == 2 })
            #expect(!model.hasUnicorn)
            guard !Self.storesThroughFoundation else { return }
            try Defaults.flush()  // the helper's write comes after this one
            track()
            // The helper writes the text "true", which a Bool key reads as true.
            #expect(try Self.runHelper(["exit-call", ScenarioSuite.name, "hasUnicorn", "true"]) == 0)
            #expect(Self.eventually { changes.count == 3 })
            #expect(model.hasUnicorn)
        }

        // MARK: - Observation

        /// D10, and D11 (its Combine form): observing a key.
        ///
        /// Observing a Bool key first delivers the current value during the `observe` call (old and new both
        /// false), then, for a write of true, one change from false to true, on the writing thread before the
        /// write returns; after the observation ends (D11's cancel) nothing more arrives. The peer does this by
        /// default; TypedDefaults with `[.initial, .synchronous]` (its default is changes only, on a queue of its
        /// own). The Combine publisher itself is Apple-only and publishes values rather than changes.
        @Test("D10 observe: the initial value during the call, then each change on the writer's thread")
        func observeKey() {
            let changes = Recorder<DefaultsChange<Bool>>()
            let threads = Recorder<UInt>()
            let token = Defaults.observe(.isUnicornMode, options: [.initial, .synchronous]) { change in
                changes.append(change)
                threads.append(Self.currentThread())
            }
            #expect(changes.all.map(\.oldValue) == [false])
            #expect(changes.all.map(\.newValue) == [false])
            #expect(changes.all.map(\.isInitial) == [true])
            Defaults[.isUnicornMode] = true
            #expect(changes.all.map(\.oldValue) == [false, false])
            #expect(changes.all.map(\.newValue) == [false, true])
            #expect(changes.all.last?.isInitial == false)
            #expect(threads.all.allSatisfy { $0 == Self.currentThread() })
            token.invalidate()
            Defaults[.isUnicornMode] = false
            #expect(changes.count == 2)
        }

        /// D12: `updates`, an async sequence of a key's values.
        ///
        /// `updates` as an async sequence yields the current value first (`initial` defaults to true), then
        /// each new value. Several keys of different types yield an element on each change of any of them (the
        /// peer yields a tuple of the values; here the element carries nothing and the values are read); the
        /// array form of one key type yields once at the start and once per change.
        @Test("D12 async updates: current value first, then each change; the several-key forms")
        func asyncUpdates() async {
            let values = Recorder<Bool>()
            let single = Task {
                for await value in Defaults.updates(.isUnicornMode) { values.append(value) }
            }
            #expect(await Self.eventually { values.all == [false] })
            Defaults[.isUnicornMode] = true
            #expect(await Self.eventually { values.all == [false, true] })
            single.cancel()

            let pairs = Recorder<String>()
            let several = Task {
                for await _ in Defaults.updates(.foo, .bar) { pairs.append("\(Defaults[.foo]) \(Defaults[.bar])") }
            }
            #expect(await Self.eventually { pairs.all == ["0 "] })
            Defaults[.foo] = 1
            #expect(await Self.eventually { pairs.all == ["0 ", "1 "] })
            Defaults[.bar] = "b"
            #expect(await Self.eventually { pairs.all == ["0 ", "1 ", "1 b"] })
            several.cancel()

            let ticks = Recorder<Int>()
            let array = Task {
                for await _ in Defaults.updates([.key1, .key2]) { ticks.append(Defaults[.key1] + Defaults[.key2]) }
            }
            #expect(await Self.eventually { ticks.all == [0] })
            Defaults[.key2] = 2
            #expect(await Self.eventually { ticks.all == [0, 2] })
            array.cancel()
        }

        /// An object that observes a key for as long as it lives, without keeping the observation itself.
        final class Foo: Sendable {
            init(_ seen: Recorder<Bool>) {
                Defaults.observe(.isUnicornMode, options: [.synchronous]) { seen.append($0.newValue) }
                    .tieToLifetime(of: self)
            }
        }

        /// D13: an observation tied to an object's lifetime.
        ///
        /// An observation tied to an object's lifetime keeps running though nobody keeps it, and stops
        /// once the object is gone. `removeLifetimeTie()` undoes the tie: the observation then lasts as long as
        /// its token.
        @Test("D13 tieToLifetime: runs while the object lives, stops after; removeLifetimeTie hands it back")
        func lifetimeTie() {
            let seen = Recorder<Bool>()
            var foo: Foo? = Foo(seen)
            Defaults[.isUnicornMode] = true
            #expect(seen.all == [true])
            withExtendedLifetime(foo) {}
            foo = nil
            Defaults[.isUnicornMode] = false
            #expect(seen.all == [true])

            let untied = Recorder<Bool>()
            var owner: Foo? = Foo(Recorder())
            var token: DefaultsObservation? = Defaults.observe(.isUnicornMode, options: [.synchronous]) {
                untied.append($0.newValue)
            }
            token?.tieToLifetime(of: owner!)
            token?.removeLifetimeTie()
            owner = nil
            Defaults[.isUnicornMode] = true
            #expect(untied.all == [true])
            withExtendedLifetime(token) {}
            token = nil
            Defaults[.isUnicornMode] = false
            #expect(untied.all == [true])
        }

        /// D15: controlling propagation inside a handler.
        ///
        /// A handler for two keys writes one of them inside `withoutPropagation` (no observer hears of that
        /// write, so the handler does not call itself), then writes a third key outside it, which its observers
        /// do hear. The suppressed write is still stored.
        @Test("D15 withoutPropagation: the handler's own write is silent and stored; a later write is heard")
        func withoutPropagation() throws {
            let calls = Recorder<Int>()
            let key1Heard = Recorder<Int>()
            let someKeyHeard = Recorder<Bool>()
            let watcher = Defaults.observe(.key1, options: [.synchronous]) { key1Heard.append($0.newValue) }
            let someKeyWatcher = Defaults.observe(.someKey, options: [.synchronous]) {
                someKeyHeard.append($0.newValue)
            }
            let token = Defaults.observe(keys: .key1, .key2, options: [.synchronous]) {
                calls.append(1)
                Defaults.withoutPropagation {
                    Defaults[.key1] = 11
                }
                Defaults[.someKey] = true
            }
            Defaults[.key2] = 5
            #expect(calls.count == 1)
            #expect(key1Heard.all.isEmpty)
            #expect(someKeyHeard.all == [true])
            #expect(Defaults[.key1] == 11)
            #expect(try Self.stored()["key1"] as? Int == 11)
            for observation in [token, watcher, someKeyWatcher] { observation.invalidate() }
        }

        // MARK: - Reset

        /// D14 and D26: resetting keys.
        ///
        /// A reset makes a Bool key read its default again and removes it from the file; an
        /// optional key reads `nil` after one. Several keys of different types reset in one call.
        @Test("D14 D26 reset: the default again, the key gone from the file; several keys at once")
        func reset() throws {
            Defaults[.isUnicornMode] = true
            #expect(Defaults[.isUnicornMode])
            Defaults.reset(.isUnicornMode)
            #expect(!Defaults[.isUnicornMode])
            #expect(try Self.stored()["isUnicornMode"] == nil)

            #expect(Defaults[.userName] == nil)
            Defaults[.userName] = "Alice"
            #expect(Defaults[.userName] == "Alice")
            Defaults.reset(.userName)
            #expect(Defaults[.userName] == nil)

            Defaults[.isUnicornMode] = true
            Defaults[.userName] = "Alice"
            Defaults[.quality] = 0.1
            Defaults.reset(.isUnicornMode, .userName, .quality)
            #expect(try Self.stored().isEmpty)
            #expect(Defaults.isDefaultValue(.quality) && Defaults.isDefaultValue(.isUnicornMode))
        }

        // MARK: - Plain UserDefaults and suites

        /// D16: TypedDefaults is also `UserDefaults` with a subscript: a `UserDefaults` instance reads a typed
        /// key's default, and a write through it lands in that instance's file in its native form.
        @Test("D16 a UserDefaults instance reads and writes a typed key")
        func userDefaultsSubscript() throws {
            let path = ScenarioSuite.directory.path + "/peer-defaults-plain-\(UUID().uuidString)"
            let foundation = try #require(UserDefaults(suiteName: path))
            let isUnicorn = Key<Bool>("isUnicorn", default: true)
            #expect(foundation[isUnicorn])
            foundation[isUnicorn] = false
            #expect(!foundation[isUnicorn])
            #expect(foundation.object(forKey: "isUnicorn") as? Bool == false)
        }

        /// D17 and D28: a suite shared with an app extension.
        ///
        /// In the peer the key names the suite; here the adapter does, and this module's global `Defaults` is
        /// that suite. A second adapter opened on the same suite by name (the extension's) reads and writes the
        /// same values, and (with the file store) another process's increments of an app-group counter are seen.
        @Test("D17 D28 a shared suite: two adapters see the same values; another process's writes arrive")
        func sharedSuite() throws {
            let extensionDefaults = try Self.otherAdapter()
            #expect(Defaults[.isUnicorn] && extensionDefaults[.isUnicorn])
            extensionDefaults[.isUnicorn] = false
            #expect(!Defaults[.isUnicorn])
            #expect(try Self.stored()["isUnicorn"] as? Bool == false)

            Defaults[.counter] += 1
            #expect(extensionDefaults[.counter] == 1)
            guard !Self.storesThroughFoundation else { return }
            try Defaults.flush()
            #expect(try Self.runHelper(["increment", ScenarioSuite.name, "2"]) == 0)
            #expect(Self.eventually { Defaults[.counter] == 3 })
            #expect(try Self.stored()["counter"] as? Int == 3)
        }

        /// D18: defaults and Foundation's registration table.
        ///
        /// The peer registers every constant default in Foundation's registration table, so Foundation's
        /// own getters see it. TypedDefaults deliberately does not (a suite's defaults would leak into every
        /// other suite of the process): the key reads its default, while Foundation reading the same file finds
        /// nothing, and the suite lists nothing stored. A `UserDefaults` instance sees the default through the
        /// typed subscript.
        @Test("D18 defaults are not registered with Foundation: its getters see nothing, the typed key sees true")
        func noRegistration() throws {
            let isUnicornMode = Key<Bool>("isUnicornMode", default: true)
            #expect(Defaults[isUnicornMode])
            #expect(Defaults.storedValues()["isUnicornMode"] == nil)
            let foundation = try #require(
                UserDefaults(suiteName: ScenarioSuite.directory.path + "/" + ScenarioSuite.name)
            )
            #expect(foundation.object(forKey: "isUnicornMode") == nil)
            #expect(!foundation.bool(forKey: "isUnicornMode"))
            #expect(foundation[isUnicornMode])
        }

        /// D27: a value written through a typed key is the native value Foundation itself stores, under the same
        /// name, so code still using `UserDefaults` directly reads it.
        @Test("D27 a typed String write is a plain string under the same name for Foundation")
        func interoperability() throws {
            #expect(Defaults[.theme] == "light")
            Defaults[.theme] = "dark"
            #expect(try Self.stored()["theme"] as? String == "dark")
        }

        // MARK: - Types

        /// D19: a type with a bridge of its own.
        ///
        /// A type with a bridge of its own, storing a user as a dictionary of two strings (a dictionary
        /// missing a field reads as no user). Keys of the type, of a set, an array and a dictionary of it each
        /// read their default's user; each is stored as the bridge's dictionary, an array of them (the set too)
        /// and a dictionary of them.
        @Test("D19 a custom bridge, alone and inside a set, an array and a dictionary")
        func customBridge() throws {
            #expect(Defaults[.bridgedUser].name == "Hello")
            #expect(Defaults[.bridgedUsers][0].name == "Hello")
            #expect(Defaults[.bridgedUserSet].first?.name == "Hello")
            #expect(Defaults[.bridgedUserDictionary]["user"]?.name == "Hello")
            let ann = DefaultsReadmeBridgedUser(name: "Ann", age: "30")
            Defaults[.bridgedUser] = ann
            Defaults[.bridgedUsers] = [ann, .hello]
            Defaults[.bridgedUserSet] = [ann]
            Defaults[.bridgedUserDictionary] = ["ann": ann]
            #expect(Defaults[.bridgedUser] == ann)
            #expect(Defaults[.bridgedUsers] == [ann, .hello])
            #expect(Defaults[.bridgedUserSet] == [ann])
            #expect(Defaults[.bridgedUserDictionary] == ["ann": ann])
            let annStored = ["name": "Ann", "age": "30"]
            let stored = try Self.stored()
            #expect(stored["bridgedUser"] as? [String: String] == annStored)
            #expect(stored["bridgedUsers"] as? [[String: String]] == [annStored, ["name": "Hello", "age": "24"]])
            #expect(stored["bridgedUserSet"] as? [[String: String]] == [annStored])
            #expect(stored["bridgedUserDictionary"] as? [String: [String: String]] == ["ann": annStored])

            // A dictionary missing a field is no user: the key's default, and the stored value left alone.
            try Defaults.modifyStoredValues { $0["bridgedUser"] = .dictionary(["name": .string("Cy")]) }
            #expect(Defaults[.bridgedUser] == .hello)
            #expect(try Self.stored()["bridgedUser"] as? [String: String] == ["name": "Cy"])
        }

        /// D20: an enum that is both `Codable` and raw-valued.
        ///
        /// An enum that is both `Codable` and `String`-raw-valued is stored as its raw value, which
        /// Foundation reads as the plain string. The peer needs an opt-in protocol for this; here it is the rule.
        /// The form the peer writes without the opt-in (the raw value as JSON text) reads as it is, and a type
        /// that wants that form names the `Codable` bridge.
        @Test("D20 a Codable raw-value enum is stored as the raw string, without an opt-in")
        func preferRawValue() throws {
            Defaults[.mime] = .stream
            Defaults[.mime] = .json
            #expect(try Self.stored()["mime"] as? String == "application/json")
            let (left, _) = try Self.suiteLeftByPeer(["mime": "\"application/octet-stream\""])
            #expect(left[.mime] == .stream)
            // A type that wants the peer's JSON names the Codable bridge.
            Defaults[Key<DefaultsReadmeJSONMime?>("jsonMime")] = .json
            #expect(try Self.stored()["jsonMime"] as? String == #""application/json""#)
        }

        /// D29 and D30: the value types the peer lists (every integer width, the floating-point types, text,
        /// Booleans, dates, data, URLs, UUIDs, `Codable` values, an `NSSecureCoding` object holding a string, an
        /// integer and a Boolean, and nested collections such as an array of dictionaries of UUID sets) each
        /// read back exactly what was written, also from a copy of the suite's file opened as a new suite.
        @Test("D29 D30 the peer's supported types round-trip, nested collections and an NSSecureCoding object too")
        func supportedTypes() throws {
            let date = Date(timeIntervalSinceReferenceDate: 812_345_678.25)
            let uuid = UUID()
            let url = URL(string: "https://example.com/a?b=1#c")!
            let nested: [[String: Set<UUID>]] = [["a": [uuid, UUID()]], [:]]
            let object = DefaultsReadmeSecureObject(text: "Default", number: 5, flag: true)
            Defaults[Key<Int8>("int8", default: 0)] = .min
            Defaults[Key<UInt8>("uint8", default: 0)] = .max
            Defaults[Key<Int16>("int16", default: 0)] = .min
            Defaults[Key<UInt16>("uint16", default: 0)] = .max
            Defaults[Key<Int32>("int32", default: 0)] = .min
            Defaults[Key<UInt32>("uint32", default: 0)] = .max
            Defaults[Key<Int64>("int64", default: 0)] = .min
            Defaults[Key<UInt64>("uint64", default: 0)] = .max
            Defaults[Key<Int>("int", default: 0)] = .max
            Defaults[Key<UInt>("uint", default: 0)] = .max
            Defaults[Key<Double>("double", default: 0)] = 0.1
            Defaults[Key<Float>("float", default: 0)] = 3.14
            Defaults[Key<CGFloat>("cgfloat", default: 0)] = 2.5
            Defaults[Key<String>("string", default: "")] = "🦄"
            Defaults[Key<Bool>("bool", default: false)] = true
            Defaults[Key<Date?>("date")] = date
            Defaults[Key<Data>("data", default: Data())] = Data([0, 1, 2])
            Defaults[Key<URL?>("url")] = url
            Defaults[Key<UUID?>("uuid")] = uuid
            Defaults[Key<DefaultsReadmeUser?>("codable")] = .hello
            Defaults[Key<[[String: Set<UUID>]]>("nested", default: [])] = nested
            Defaults[Key<DefaultsReadmeSecureObject?>("secure")] = object
            try Defaults.flush()
            let copy = "peer-defaults-copy-\(UUID().uuidString)"
            try FileManager.default.copyItem(
                at: ScenarioSuite.file,
                to: ScenarioSuite.directory.appendingPathComponent(copy + ".plist")
            )

            for defaults in [Defaults, try Self.openSuite(copy)] {
                #expect(defaults[Key<Int8>("int8", default: 0)] == .min)
                #expect(defaults[Key<UInt8>("uint8", default: 0)] == .max)
                #expect(defaults[Key<Int16>("int16", default: 0)] == .min)
                #expect(defaults[Key<UInt16>("uint16", default: 0)] == .max)
                #expect(defaults[Key<Int32>("int32", default: 0)] == .min)
                #expect(defaults[Key<UInt32>("uint32", default: 0)] == .max)
                #expect(defaults[Key<Int64>("int64", default: 0)] == .min)
                #expect(defaults[Key<UInt64>("uint64", default: 0)] == .max)
                #expect(defaults[Key<Int>("int", default: 0)] == .max)
                #expect(defaults[Key<UInt>("uint", default: 0)] == .max)
                #expect(defaults[Key<Double>("double", default: 0)] == 0.1)
                #expect(defaults[Key<Float>("float", default: 0)] == 3.14)
                #expect(defaults[Key<CGFloat>("cgfloat", default: 0)] == 2.5)
                #expect(defaults[Key<String>("string", default: "")] == "🦄")
                #expect(defaults[Key<Bool>("bool", default: false)])
                #expect(defaults[Key<Date?>("date")] == date)
                #expect(defaults[Key<Data>("data", default: Data())] == Data([0, 1, 2]))
                #expect(defaults[Key<URL?>("url")] == url)
                #expect(defaults[Key<UUID?>("uuid")] == uuid)
                #expect(defaults[Key<DefaultsReadmeUser?>("codable")] == .hello)
                #expect(defaults[Key<[[String: Set<UUID>]]>("nested", default: [])] == nested)
                let read = defaults[Key<DefaultsReadmeSecureObject?>("secure")]
                #expect(read?.text == "Default" && read?.number == 5 && read?.flag == true)
            }
            let stored = try Self.stored()
            #expect(stored["uuid"] as? String == uuid.uuidString)
            #expect(stored["url"] as? String == "https://example.com/a?b=1#c")
            #expect(stored["secure"] is Data)
        }

        // MARK: - Types that came with the migration

        /// D21: a custom collection.
        ///
        /// A bag adopting the collection protocol with an initializer from an array (the same requirement as
        /// the peer's) reads its default's elements by index and is stored as a plain array of strings; an
        /// array the peer stored reads as a bag.
        @Test("D21 a custom collection: elements by index, stored as a plain array")
        func customCollection() throws {
            let bag = Key<DefaultsReadmeBag<String>>("stringBag", default: DefaultsReadmeBag(["Hello", "World!"]))
            #expect(Defaults[bag][0] == "Hello")
            #expect(Defaults[bag][1] == "World!")
            Defaults[bag] = DefaultsReadmeBag(["a", "b", "c"])
            #expect(Array(Defaults[bag]) == ["a", "b", "c"])
            #expect(try Self.stored()["stringBag"] as? [String] == ["a", "b", "c"])
            let (left, _) = try Self.suiteLeftByPeer(["stringBag": ["x", "y"]])
            #expect(Array(left[bag]) == ["x", "y"])
        }

        /// D22: a custom set algebra.
        ///
        /// A set type adopting the set-algebra protocol with a method listing its elements (the peer's
        /// requirement) contains both of its default's strings, and is stored as an array of them, in no
        /// particular order.
        @Test("D22 a custom set algebra: membership, stored as an array")
        func customSetAlgebra() throws {
            let set = Key<DefaultsReadmeSetBag<String>>("stringSet", default: ["Hello", "World!"])
            #expect(Defaults[set].contains("Hello"))
            #expect(Defaults[set].contains("World!"))
            Defaults[set].insert("Again")
            #expect(Defaults[set] == ["Hello", "World!", "Again"])
            let stored = try #require(try Self.stored()["stringSet"] as? [String])
            #expect(Set(stored) == ["Hello", "World!", "Again"] && stored.count == 3)
        }

        /// D23: a key of the dynamic value type holding a primitive.
        ///
        /// The peer's `AnySerializable` is `PropertyListValue` here: a key whose default is the literal 1
        /// reads 1; after the literal "🦄" is assigned it reads back as a `String`. Each is stored as the plain
        /// property-list value.
        @Test("D23 a dynamic value from literals: an integer, then a string, each stored natively")
        func dynamicPrimitive() throws {
            let any = Key<PropertyListValue>("anyKey", default: 1)
            #expect(Defaults[any].get(Int.self) == 1)
            Defaults[any] = 2
            #expect(try Self.stored()["anyKey"] as? Int == 2)
            Defaults[any] = "🦄"
            #expect(Defaults[any].get(String.self) == "🦄")
            let text: String? = Defaults[any].get()
            #expect(text == "🦄")
            #expect(try Self.stored()["anyKey"] as? String == "🦄")
        }

        /// D24: a dynamic value holding an enum.
        ///
        /// Made from the enum (through its bridge), the value reads back as the enum; `set` replaces it with
        /// another case, read back the same way. It is stored as the raw string.
        @Test("D24 a dynamic value holding an enum: typed get and set, stored as the raw string")
        func dynamicEnum() throws {
            let mime = Key<PropertyListValue>("anyMime", default: try PropertyListValue(DefaultsReadmeMime.json))
            #expect(Defaults[mime].get(DefaultsReadmeMime.self)?.rawValue == "application/json")
            try Defaults[mime].set(DefaultsReadmeMime.stream)
            #expect(Defaults[mime].get(DefaultsReadmeMime.self)?.rawValue == "application/octet-stream")
            #expect(try Self.stored()["anyMime"] as? String == "application/octet-stream")
        }

        /// D25: a dictionary of dynamic values.
        ///
        /// Entries of several kinds (a string, a number, a Boolean, an enum) go into one key and each reads
        /// back as its type; the key is stored as one dictionary of native values. The FAQ's variant (a theme
        /// name, a font size, a flag) likewise.
        @Test("D25 a dictionary of dynamic values: mixed entries, one native dictionary")
        func dynamicDictionary() throws {
            let magic = Key<[String: PropertyListValue]>("magic", default: [:])
            Defaults[magic]["unicorn"] = "🦄"
            Defaults[magic]["number"] = 3
            Defaults[magic]["boolean"] = true
            Defaults[magic]["enum"] = try PropertyListValue(DefaultsReadmeMime.json)
            #expect(Defaults[magic]["unicorn"]?.get(String.self) == "🦄")
            #expect(Defaults[magic]["number"]?.get(Int.self) == 3)
            #expect(Defaults[magic]["boolean"]?.get(Bool.self) == true)
            #expect(Defaults[magic]["enum"]?.get(DefaultsReadmeMime.self)?.rawValue == "application/json")
            let stored = try #require(try Self.stored()["magic"] as? [String: Any])
            #expect(stored["unicorn"] as? String == "🦄")
            #expect(stored["number"] as? Int == 3)
            #expect(stored["boolean"] as? Bool == true)
            #expect(stored["enum"] as? String == "application/json")

            let settings = Key<[String: PropertyListValue]>("settings", default: [:])
            Defaults[settings] = ["theme": "dark", "fontSize": 14, "enabled": true]
            #expect(Defaults[settings]["theme"]?.get(String.self) == "dark")
            #expect(Defaults[settings]["fontSize"]?.get(Int.self) == 14)
            #expect(Defaults[settings]["enabled"]?.get(Bool.self) == true)
        }

        /// D29, the range types, and the rule for a class that is both `Codable` and `NSSecureCoding`.
        ///
        /// `Range` and `ClosedRange` round-trip and are stored as a two-element array, lower bound first, the
        /// peer's form, which reads as it is. A class that is both `Codable` and `NSSecureCoding` is stored as
        /// JSON, as the peer stores it; naming the keyed-archive bridge (what the peer's opt-out protocol
        /// does) stores an archive.
        @Test("D29 ranges as two-element arrays; Codable over NSSecureCoding unless the archive bridge is named")
        func rangesAndArchives() throws {
            let hours = Key<Range<Int>>("hours", default: 8..<18)
            let limits = Key<ClosedRange<Double>>("limits", default: 0...1)
            #expect(Defaults[hours] == 8..<18)
            Defaults[hours] = 9..<17
            Defaults[limits] = 0.25...0.75
            #expect(Defaults[hours] == 9..<17 && Defaults[limits] == 0.25...0.75)
            var stored = try Self.stored()
            #expect(stored["hours"] as? [Int] == [9, 17])
            #expect(stored["limits"] as? [Double] == [0.25, 0.75])
            let (left, _) = try Self.suiteLeftByPeer(["hours": [1, 5], "limits": [0.5, 2.5]])
            #expect(left[hours] == 1..<5 && left[limits] == 0.5...2.5)

            Defaults[Key<DefaultsReadmeNote?>("note")] = DefaultsReadmeNote(text: "hi")
            Defaults[Key<DefaultsReadmeArchivedNote?>("archivedNote")] = DefaultsReadmeArchivedNote(text: "hi")
            #expect(Defaults[Key<DefaultsReadmeNote?>("note")]?.text == "hi")
            #expect(Defaults[Key<DefaultsReadmeArchivedNote?>("archivedNote")]?.text == "hi")
            stored = try Self.stored()
            #expect(stored["note"] as? String == #"{"text":"hi"}"#)
            #expect(stored["archivedNote"] is Data)
        }

        /// Settings the peer already stored read as they are, with no migration step.
        ///
        /// Settings the peer already stored, in the forms it writes (a file written by Foundation, as the peer
        /// writes through it), read through TypedDefaults as they are, with no migration step: native Booleans,
        /// numbers, text, data and dates; arrays, string-keyed dictionaries and sets (stored as arrays); a
        /// `Codable` value as sorted-key JSON text; a URL as JSON text (quotes and escaped slashes included); a
        /// UUID as its string; raw values, and a `Codable` enum's raw value as JSON text; an `NSSecureCoding`
        /// object as a secure keyed archive; a custom bridge's dictionary. An optional the peer set to `nil` is
        /// absent and reads `nil`; a value of the wrong type reads as the key's default, as in the peer.
        @Test("settings the peer stored read as they are")
        func storedByPeer() throws {
            let date = Date(timeIntervalSinceReferenceDate: 812_345_678)
            let uuid = UUID()
            let archive = try NSKeyedArchiver.archivedData(
                withRootObject: DefaultsReadmeSecureObject(text: "Default", number: 5, flag: true),
                requiringSecureCoding: true
            )
            let (left, _) = try Self.suiteLeftByPeer([
                "bool": true,
                "int": 42,
                "double": 0.25,
                "string": "text",
                "data": Data([9, 8]),
                "date": date,
                "strings": ["a", "b"],
                "scores": ["ann": 3, "bo": 4],
                "tags": [3, 1, 2],
                "user": #"{"age":"24","name":"Hello"}"#,
                "url": #""https:\/\/sindresorhus.com\/defaults?x=1""#,
                "uuid": uuid.uuidString,
                "duration": "30 Minutes",
                "codableDuration": "\"10 Minutes\"",
                "secure": archive,
                "bridgedUser": ["name": "Ann", "age": "30"],
                "wrongType": "not a number",
            ])
            #expect(left[Key<Bool>("bool", default: false)])
            #expect(left[Key<Int>("int", default: 0)] == 42)
            #expect(left[Key<Double>("double", default: 0)] == 0.25)
            #expect(left[Key<String>("string", default: "")] == "text")
            #expect(left[Key<Data>("data", default: Data())] == Data([9, 8]))
            #expect(left[Key<Date?>("date")] == date)
            #expect(left[Key<[String]>("strings", default: [])] == ["a", "b"])
            #expect(left[Key<[String: Int]>("scores", default: [:])] == ["ann": 3, "bo": 4])
            #expect(left[Key<Set<Int>>("tags", default: [])] == [1, 2, 3])
            #expect(left[.user] == .hello)
            #expect(left[Key<URL?>("url")] == URL(string: "https://sindresorhus.com/defaults?x=1"))
            #expect(left[Key<UUID?>("uuid")] == uuid)
            #expect(left[.duration] == .halfHour)
            #expect(left[.codableDuration] == .tenMinutes)
            let object = left[Key<DefaultsReadmeSecureObject?>("secure")]
            #expect(object?.text == "Default" && object?.number == 5 && object?.flag == true)
            #expect(left[.bridgedUser] == DefaultsReadmeBridgedUser(name: "Ann", age: "30"))
            #expect(left[Key<String?>("neverSet")] == nil)
            #expect(left[Key<Int>("wrongType", default: 7)] == 7)
        }

        /// Key names the peer warns about (its observation goes through key-value observing, which reads a dot
        /// as a path): dots, a leading `@` and non-ASCII text are ordinary names here, stored, read and observed
        /// like any other.
        @Test("names with dots, a leading @ and non-ASCII text work, observation included")
        func keyNames() throws {
            let names = ["com.example.quality", "@quality", "qualité"]
            let heard = Recorder<String>()
            var tokens: [DefaultsObservation] = []
            for name in names {
                let key = Key<Int>(name, default: 0)
                tokens.append(Defaults.observe(key, options: [.synchronous]) { heard.append($0.key) })
                Defaults[key] = 1
                #expect(Defaults[key] == 1)
            }
            #expect(heard.all == names)
            #expect(Set(try Self.stored().keys) == Set(names))
            for token in tokens { token.invalidate() }
        }
    }
}
