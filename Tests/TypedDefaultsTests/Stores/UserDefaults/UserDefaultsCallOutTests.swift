import Foundation
import Testing

@testable import TypedDefaults

/// Observers that Foundation calls inside its writes read and write settings through TypedDefaults.
///
/// Foundation on Apple platforms calls key-value observers and posts `UserDefaults.didChangeNotification` on
/// the writing thread, inside `set(_:forKey:)` and `removeObject(forKey:)`, and an app's observer there reads and
/// writes settings through TypedDefaults. Foundation on Linux does neither, so a subclass does it here the way
/// Apple's does.
@Suite("UserDefaults store, Foundation calling out")
struct UserDefaultsCallOutTests {
    /// A `UserDefaults` that tells its observers of each change inside the call that made it, as Apple's does.
    final class CallingOutDefaults: UserDefaults {
        let center = NotificationCenter()

        override func set(_ value: Any?, forKey defaultName: String) {
            super.set(value, forKey: defaultName)
            center.post(name: UserDefaults.didChangeNotification, object: self)
        }

        override func removeObject(forKey defaultName: String) {
            super.removeObject(forKey: defaultName)
            center.post(name: UserDefaults.didChangeNotification, object: self)
        }
    }

    static let name = Key<String?>("name")
    static let copy = Key<String?>("copy")
    static let other = Key<String?>("other")

    /// Runs `body` on a thread of its own; returns whether it finished within `timeout`.
    ///
    /// A body that waits on a lock its own thread holds never finishes: the test fails rather than hang (the
    /// thread stays blocked).
    static func finishes(within timeout: DispatchTimeInterval = .seconds(10), _ body: @escaping @Sendable () -> Void)
        -> Bool
    {
        let finished = DispatchSemaphore(value: 0)
        Thread {
            body()
            finished.signal()
        }
        .start()
        return finished.wait(timeout: .now() + timeout) == .success
    }

    @Test("an observer called inside Foundation's write reads and writes through the adapter, on its thread")
    func observerReadsAndWrites() throws {
        let directory = TemporaryConfigDirectory()
        let defaults = try #require(CallingOutDefaults(suiteName: directory.url.path + "/calling-out"))
        let adapter = DefaultsAdapter(store: UserDefaultsStore(defaults), keyStore: DefaultsKeys())
        let seen = Recorder<String?>()
        // What an app does on this notification: read a setting, and keep another in step with it.
        let token = defaults.center.addObserver(forName: UserDefaults.didChangeNotification, object: nil, queue: nil) {
            _ in
            let name = adapter[key: Self.name]
            seen.append(name)
            if adapter[key: Self.copy] != name { adapter[key: Self.copy] = name }
        }
        defer { defaults.center.removeObserver(token) }

        let finished = Self.finishes {
            adapter[key: Self.name] = "ada"
            adapter[key: Self.name] = nil
        }
        #expect(finished, "a write waited for itself: a lock was held across Foundation's call")
        guard finished else { return }
        #expect(seen.all.contains("ada"))
        #expect(seen.all.last == .some(nil), "\(seen.all)")
        #expect(adapter[key: Self.copy] == nil)
        #expect(defaults.object(forKey: "copy") == nil)
        #expect(defaults.object(forKey: "name") == nil)
    }

    /// Whether a batch applied while another thread writes into the instance waits for its synchronization: on
    /// Linux, where Foundation calls nothing out of its writes (only this test's subclass does).
    static let batchesWaitForSynchronization: Bool = {
        #if canImport(Darwin)
        false
        #else
        true
        #endif
    }()

    @Test(
        "an observer called inside Foundation's write can wait for another thread that writes and reads",
        .disabled(
            if: batchesWaitForSynchronization,
            Comment(
                rawValue: "on Linux a batch waits for the thread writing into its instance to synchronize it, and "
                    + "Linux's Foundation calls no observer from inside a write"
            )
        )
    )
    func observerWaitsForAnotherThread() throws {
        let directory = TemporaryConfigDirectory()
        let defaults = try #require(CallingOutDefaults(suiteName: directory.url.path + "/calling-out"))
        let adapter = DefaultsAdapter(store: UserDefaultsStore(defaults), keyStore: DefaultsKeys())
        let read = Recorder<String?>()
        let token = defaults.center.addObserver(forName: UserDefaults.didChangeNotification, object: nil, queue: nil) {
            _ in
            guard adapter[key: Self.other] == nil else { return }
            // As an observer that hands work to another queue and waits for it does.
            _ = Self.finishes(within: .seconds(5)) {
                adapter[key: Self.other] = "from another thread"
                read.append(adapter[key: Self.name])
            }
        }
        defer { defaults.center.removeObserver(token) }

        let finished = Self.finishes { adapter[key: Self.name] = "ada" }
        #expect(finished, "a write waited for itself: a lock was held across Foundation's call")
        guard finished else { return }
        #expect(read.all == ["ada"])
        #expect(adapter[key: Self.other] == "from another thread")
        #expect(defaults.string(forKey: "other") == "from another thread")
        #expect(defaults.string(forKey: "name") == "ada")
    }

    @Test("batches from many threads, and from observers inside Foundation's writes, lose no update")
    func concurrentBatchesStayAtomic() throws {
        let directory = TemporaryConfigDirectory()
        let defaults = try #require(CallingOutDefaults(suiteName: directory.url.path + "/calling-out"))
        let adapter = DefaultsAdapter(
            store: UserDefaultsStore(defaults),
            keyStore: DefaultsKeys(),
            writePolicy: .coalesced(within: .seconds(3600))
        )
        let counter = Key<Int>("counter", default: 0)
        let observed = Key<Int>("observed", default: 0)
        let token = defaults.center.addObserver(forName: UserDefaults.didChangeNotification, object: nil, queue: nil) {
            _ in
            if adapter[key: observed] < 50 { _ = try? adapter.modify(observed) { $0 += 1 } }
        }
        defer { defaults.center.removeObserver(token) }

        let finished = Self.finishes(within: .seconds(60)) {
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                for _ in 0..<100 { _ = try? adapter.modify(counter) { $0 += 1 } }
            }
        }
        #expect(finished)
        guard finished else { return }
        #expect(adapter[key: counter] == 400)
        #expect(defaults.integer(forKey: "counter") == 400)
        #expect(adapter[key: observed] == 50)
    }
}
