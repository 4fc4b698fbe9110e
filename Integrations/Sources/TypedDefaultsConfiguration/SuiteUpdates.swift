import Dispatch
import Synchronization
import TypedDefaults

/// The states of a suite's stored values as they change, each once, the current one first.
///
/// A new state follows each batch of changes the store announces: this process's writes, other processes' writes
/// to the suite's file, edits by hand. Following one key, the states hold that key alone and change only with it.
///
/// The state is followed on a serial queue of its own. The first state is read on that queue after the
/// observation starts, so no change is missed; changes announced before it are already in it and are skipped.
/// A change announced after it is applied when its old value is the one followed; one that does not follow on
/// (announced before the first state was read, or by a store that coalesced changes) is settled by reading the
/// store's value for that key, which is never older than the change.
final class SuiteUpdates: Sendable {
    /// The states, newest kept when the consumer falls behind, as swift-configuration's own providers do.
    let states: AsyncStream<[String: PropertyListValue]>
    private let continuation: AsyncStream<[String: PropertyListValue]>.Continuation
    private let store: any DefaultsStore
    /// The one key followed, or `nil` for the whole suite.
    private let key: String?
    private let queue = DispatchQueue(label: "TypedDefaultsConfiguration.updates")
    /// The state last delivered, `nil` until the first.
    ///
    /// Only the queue changes it; the lock makes that visible to every thread.
    private let followed = Mutex<[String: PropertyListValue]?>(nil)
    private let observation = Mutex<DefaultsObservation?>(nil)

    /// Starts observing the changes of a key (every key for `nil`), delivered on a queue to a handler, as an
    /// adapter's `observe` and `observeStoredValues` do.
    typealias Observe =
        @Sendable (
            _ key: String?,
            _ queue: DispatchQueue,
            _ handler: @escaping @Sendable ([DefaultsChange<PropertyListValue?>]) -> Void
        ) -> DefaultsObservation

    /// Starts following `key` (every key for `nil`) of the store through `observe`.
    init(store: any DefaultsStore, key: String?, observe: Observe) {
        (states, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.store = store
        self.key = key
        let started = observe(key, queue) { [weak self] changes in self?.apply(changes) }
        observation.withLock { $0 = started }
        queue.sync {
            let current = key.map { key in store.value(forKey: key).map { [key: $0] } ?? [:] } ?? store.snapshot()
            followed.withLock { $0 = current }
            continuation.yield(current)
        }
    }

    /// Ends the observation and the sequence.
    func stop() {
        observation.withLock { $0 }?.invalidate()
        continuation.finish()
    }

    deinit { stop() }

    /// Applies a batch the store announced, on the queue, and delivers the new state if anything changed.
    private func apply(_ changes: [DefaultsChange<PropertyListValue?>]) {
        // Before the first state: that state is read after this change, so it holds it.
        guard var state = followed.withLock({ $0 }) else { return }
        var changed = false
        for change in changes where key == nil || change.key == key {
            let current = state[change.key]
            if Self.same(change.newValue, current) { continue }
            // A change that does not follow on from the state is settled by the store's value now, asked with no
            // lock held: a store may be code of the app's own.
            let new = Self.same(change.oldValue, current) ? change.newValue : store.value(forKey: change.key)
            if Self.same(new, current) { continue }
            state[change.key] = new
            changed = true
        }
        guard changed else { return }
        followed.withLock { $0 = state }
        continuation.yield(state)
    }

    /// Whether two stored values are the same bit for bit (a NaN is the same as itself), or both absent.
    private static func same(_ lhs: PropertyListValue?, _ rhs: PropertyListValue?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): true
        case (let lhs?, let rhs?): lhs.isIdentical(to: rhs)
        default: false
        }
    }
}
