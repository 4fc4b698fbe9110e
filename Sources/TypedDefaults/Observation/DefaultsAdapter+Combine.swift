#if canImport(Combine)
import Combine
import Dispatch
import Foundation

// Apple platforms only: nothing on Linux compiles this file. Written against Combine's documented
// `Publisher`, `Subscriber` and `Subscription` protocols; its logic was type-checked against OpenCombine.

extension DefaultsAdapter {
    /// A Combine publisher of the key's value: the current one first, then the new value after every change.
    ///
    /// Built on ``observe(_:options:queue:_:)-(KeyPath<KeyStore,Key<Value>>,_,_,_)``, so it sees the same
    /// changes (other adapters, other processes, not those made inside ``withoutPropagation(_:)``). Values
    /// arrive on `queue`, the main queue unless you pass another, one at a time and in order, so a `sink` or
    /// SwiftUI's `onReceive` in main-actor code may use them directly (in a process without a main run loop,
    /// such as a command-line tool, pass a queue of your own). A subscriber that has not asked for more gets
    /// the newest value when it does. The publisher never finishes; cancelling ends the observation.
    ///
    /// ```swift
    /// let cancellable = Defaults.publisher(\.theme).sink { theme in apply(theme) }
    /// ```
    public func publisher<Value: Sendable>(
        _ keyPath: KeyPath<KeyStore, Key<Value>>,
        queue: DispatchQueue = .main
    ) -> AnyPublisher<Value, Never> {
        publisher(keyStore[keyPath: keyPath], queue: queue)
    }

    /// A Combine publisher of the values of `key`, the current one first, delivered on `queue`.
    ///
    /// ```swift
    /// let cancellable = Defaults.publisher(Key<Bool>("flag", default: false), queue: .global())
    ///     .sink { print($0) }
    /// ```
    public func publisher<Value: Sendable>(
        _ key: Key<Value>,
        queue: DispatchQueue = .main
    ) -> AnyPublisher<Value, Never> {
        KeyValuePublisher(queue: queue) { queue, handler in
            observe(key, options: [.initial], queue: queue) { change in handler(change.newValue) }
        }
        .eraseToAnyPublisher()
    }
}

extension Default {
    /// A Combine publisher of the key's value, the current one first, delivered on the main queue:
    /// `$theme.publisher`.
    ///
    /// See ``DefaultsAdapter/publisher(_:queue:)-(KeyPath<KeyStore,Key<Value>>,_)``.
    ///
    /// ```swift
    /// let cancellable = settings.$theme.publisher.sink { theme in print(theme) }
    /// ```
    public var publisher: AnyPublisher<Value, Never> {
        adapter.publisher(key)
    }
}

/// Publishes a key's values to each subscriber through an observation of its own.
private struct KeyValuePublisher<Output: Sendable>: Publisher {
    typealias Failure = Never
    /// Where values are delivered.
    let queue: DispatchQueue
    /// Starts observing: calls the handler, on the queue given, with the current value and every new one.
    let observe: @Sendable (DispatchQueue, @escaping @Sendable (Output) -> Void) -> DefaultsObservation

    func receive<Downstream: Subscriber>(subscriber: Downstream)
    where Downstream.Input == Output, Downstream.Failure == Never {
        // Type-erased, so that the subscription is generic over the (sendable) value type alone.
        let subscription = KeyValueSubscription(downstream: AnySubscriber(subscriber), queue: queue)
        // The subscriber hears of its subscription before any value, as Combine requires.
        subscriber.receive(subscription: subscription)
        subscription.start(observe)
    }
}

/// One subscriber's observation of a key: hands on values as far as the subscriber asked for them, keeping
/// the newest one while it has not.
// @unchecked: every stored property is guarded by `lock`.
private final class KeyValueSubscription<Output: Sendable>: Subscription, @unchecked Sendable {
    typealias Downstream = AnySubscriber<Output, Never>

    // Every stored property below is read and written only while holding `lock`. The subscriber is called
    // only on `queue` (one value at a time, in order), never while holding `lock`.
    private let lock = ShortLock()
    private var downstream: Downstream?
    private var demand = Subscribers.Demand.none
    private var latest: Output?
    private var observation: DefaultsObservation?
    /// Serial even when the queue values are to be delivered on is not.
    private let queue: DispatchQueue

    init(downstream: Downstream, queue target: DispatchQueue) {
        self.downstream = downstream
        queue = DispatchQueue(label: "TypedDefaults.publisher", target: target)
    }

    /// Starts the observation, unless the subscription was cancelled already.
    func start(
        _ observe: @Sendable (DispatchQueue, @escaping @Sendable (Output) -> Void) -> DefaultsObservation
    ) {
        let started = observe(queue) { [weak self] value in self?.receive(value) }
        let cancelled = withLock {
            guard downstream != nil else { return true }
            observation = started
            return false
        }
        if cancelled { started.invalidate() }
    }

    func request(_ more: Subscribers.Demand) {
        guard more > 0 else { return }
        withLock { demand += more }
        // A value kept while there was no demand goes out now, on the queue, in order with the others.
        queue.async { [weak self] in self?.sendLatest() }
    }

    func cancel() {
        let ended = withLock {
            defer {
                downstream = nil
                observation = nil
                latest = nil
            }
            return observation
        }
        ended?.invalidate()
    }

    /// A new value, on the queue: sent if the subscriber wants one, else kept in place of the last kept one.
    private func receive(_ value: Output) {
        withLock { latest = value }
        sendLatest()
    }

    /// Sends the kept value, if there is one and the subscriber wants it; on the queue.
    private func sendLatest() {
        let next = withLock { () -> (Downstream, Output)? in
            guard let downstream, let value = latest, demand > 0 else { return nil }
            demand -= 1
            latest = nil
            return (downstream, value)
        }
        guard let (downstream, value) = next else { return }
        let more = downstream.receive(value)
        if more > 0 { withLock { demand += more } }
    }

    private func withLock<Result>(_ body: () -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}
#endif
