import Dispatch

extension DefaultsAdapter {
    /// Calls `handler` with the old and new value every time the key's stored value changes.
    ///
    /// Changes made through any adapter on this suite in this process are reported, and so are other
    /// processes' writes to the suite's file (within milliseconds, through a file watch) and changes by hand.
    /// Writing a value equal to the current one reports nothing. `reset`, `removeAll` and `modify` report
    /// like writes. Launch arguments are not changes: observers see the stored value.
    ///
    /// `handler` runs on `queue`, or on a serial queue of the observation's own, one change at a time and in
    /// order, never on the writer's stack: it may read and write defaults, the observed key included (a write
    /// of an equal value reports nothing, so a handler that normalizes its key settles). With
    /// ``ObservationOptions/synchronous`` it runs on the writing thread before the write returns instead.
    ///
    /// ```swift
    /// let token = Defaults.observe(\.theme, options: [.initial]) { change in
    ///     print(change.oldValue, change.newValue)
    /// }
    /// ```
    public func observe<Value: Sendable>(
        _ keyPath: KeyPath<KeyStore, Key<Value>>,
        options: ObservationOptions = [],
        queue: DispatchQueue? = nil,
        _ handler: @escaping @Sendable (DefaultsChange<Value>) -> Void
    ) -> DefaultsObservation {
        observe(keyStore[keyPath: keyPath], options: options, queue: queue, handler)
    }

    /// Calls `handler` every time the stored value of `key` changes.
    ///
    /// ```swift
    /// let token = Defaults.observe(.quality, options: [.initial, .synchronous]) { change in
    ///     encoder.quality = change.newValue
    /// }
    /// ```
    public func observe<Value: Sendable>(
        _ key: Key<Value>,
        options: ObservationOptions = [],
        queue: DispatchQueue? = nil,
        _ handler: @escaping @Sendable (DefaultsChange<Value>) -> Void
    ) -> DefaultsObservation {
        let observation = DefaultsObservation(queue: queue ?? Self.observationQueue())
        listen(for: [key.name], options: options, observation: observation) { [self] changes in
            for change in changes {
                // A stored value that does not decode is reported, not passed on as a bogus change.
                guard let old = decoded(change.oldValue, for: key),
                    let new = decoded(change.newValue, for: key),
                    !isEqual(old, new)
                else { continue }
                handler(DefaultsChange(key: key.name, oldValue: old, newValue: new))
            }
        }
        // Read after registering, so a change in between is reported rather than missed (it may then come
        // just before the initial value, which is the newer one either way).
        if options.contains(.initial) {
            let current = store.value(forKey: key.name)
            start(observation, options: options) { [self] in
                let value = decode(current, for: key)
                handler(DefaultsChange(key: key.name, oldValue: value, newValue: value, isInitial: true))
            }
        }
        return observation
    }

    /// Calls `handler` once for every batch of changes to any of the keys.
    ///
    /// ```swift
    /// let token = Defaults.observe(keys: \.theme, \.volume) { redraw() }
    /// ```
    public func observe(
        keys keyPaths: PartialKeyPath<KeyStore>...,
        options: ObservationOptions = [],
        queue: DispatchQueue? = nil,
        _ handler: @escaping @Sendable () -> Void
    ) -> DefaultsObservation {
        let names = Set(keyPaths.compactMap { (keyStore[keyPath: $0] as? any NamedKey)?.name })
        return observe(names: names, options: options, queue: queue, handler)
    }

    /// Calls `handler` once for every batch of changes to any of the keys, whatever their value types.
    ///
    /// ```swift
    /// let token = Defaults.observe(keys: .quality, .theme) { redraw() }
    /// ```
    public func observe<each Value>(
        keys: repeat Key<each Value>,
        options: ObservationOptions = [],
        queue: DispatchQueue? = nil,
        _ handler: @escaping @Sendable () -> Void
    ) -> DefaultsObservation {
        var names = Set<String>()
        for key in repeat each keys { names.insert(key.name) }
        return observe(names: names, options: options, queue: queue, handler)
    }

    private func observe(
        names: Set<String>,
        options: ObservationOptions,
        queue: DispatchQueue?,
        _ handler: @escaping @Sendable () -> Void
    ) -> DefaultsObservation {
        let observation = DefaultsObservation(queue: queue ?? Self.observationQueue())
        listen(for: names, options: options, observation: observation) { _ in handler() }
        if options.contains(.initial) { start(observation, options: options, handler) }
        return observation
    }

    /// Calls `handler` with every batch of changes to any key of the suite: each key's name, old and new
    /// stored value (`nil` when absent).
    ///
    /// Runs like ``observe(_:options:queue:_:)-(KeyPath<KeyStore,Key<Value>>,_,_,_)``: on `queue` or the
    /// observation's own serial queue, for changes made anywhere.
    ///
    /// ```swift
    /// let token = Defaults.observeStoredValues { changes in
    ///     for change in changes { print(change.key, change.newValue?.summary ?? "removed") }
    /// }
    /// ```
    public func observeStoredValues(
        queue: DispatchQueue? = nil,
        _ handler: @escaping @Sendable ([DefaultsChange<PropertyListValue?>]) -> Void
    ) -> DefaultsObservation {
        let observation = DefaultsObservation(queue: queue ?? Self.observationQueue())
        listen(for: nil, options: [], observation: observation) { changes in
            handler(changes.map { DefaultsChange(key: $0.key, oldValue: $0.oldValue, newValue: $0.newValue) })
        }
        return observation
    }

    /// Registers `observation` for the changes of `keys` (of every key for `nil`) until it ends; each batch
    /// reaches `callback` on the observation's queue, or on the writing thread for a synchronous one.
    private func listen(
        for keys: Set<String>?,
        options: ObservationOptions,
        observation: DefaultsObservation,
        _ callback: @escaping @Sendable ([DefaultsStoreChange]) -> Void
    ) {
        let synchronous = options.contains(.synchronous)
        // The listener runs under the store's lock: it only hands the batch on.
        let registration = store.changes.add(keys: keys) { [weak observation] changes in
            guard let observation else { return }
            let delivery: @Sendable () -> Void = { callback(changes) }
            if synchronous {
                SynchronousDelivery.deliver(delivery, for: observation)
            } else {
                observation.deliver(delivery)
            }
        }
        // Holding the store keeps the suite open (and its file watched) while the observation runs.
        let store = self.store
        observation.onInvalidate { store.changes.remove(registration) }
    }

    /// Makes the initial call: here and now for a synchronous observation, else first on its queue.
    private func start(
        _ observation: DefaultsObservation,
        options: ObservationOptions,
        _ initial: @escaping @Sendable () -> Void
    ) {
        if options.contains(.synchronous) { observation.runIfActive(initial) } else { observation.deliver(initial) }
    }

    /// The key's values as they change, starting with the current one unless `initial` is `false`; the
    /// sequence ends when the task iterating it is cancelled.
    ///
    /// ```swift
    /// for await volume in Defaults.updates(\.volume) {
    ///     player.volume = volume
    /// }
    /// ```
    public func updates<Value: Sendable>(
        _ keyPath: KeyPath<KeyStore, Key<Value>>,
        initial: Bool = true
    ) -> AsyncStream<Value> {
        updates(keyStore[keyPath: keyPath], initial: initial)
    }

    /// The values of `key` as they change, starting with the current one unless `initial` is `false`.
    ///
    /// ```swift
    /// for await quality in Defaults.updates(.quality, initial: false) { encoder.quality = quality }
    /// ```
    public func updates<Value: Sendable>(_ key: Key<Value>, initial: Bool = true) -> AsyncStream<Value> {
        AsyncStream { continuation in
            let observation = observe(key, options: initial ? [.initial] : []) { change in
                continuation.yield(change.newValue)
            }
            continuation.onTermination = { _ in observation.invalidate() }
        }
    }

    /// The values of several keys, whatever their types, as one tuple: the current ones first unless `initial`
    /// is `false`, then again after every batch of changes to any of them.
    ///
    /// ```swift
    /// for await (quality, theme) in Defaults.updates(.quality, .theme) { render(quality, theme) }
    /// ```
    public func updates<each Value: Sendable>(
        _ keys: repeat Key<each Value>,
        initial: Bool = true
    ) -> AsyncStream<(repeat each Value)> {
        var names = Set<String>()
        for key in repeat each keys { names.insert(key.name) }
        return AsyncStream { continuation in
            let observation = observe(names: names, options: initial ? [.initial] : [], queue: nil) { [self] in
                continuation.yield((repeat value(for: each keys)))
            }
            continuation.onTermination = { _ in observation.invalidate() }
        }
    }

    /// An element for every batch of changes to any of the keys, starting with one right away unless
    /// `initial` is `false`.
    ///
    /// ```swift
    /// for await _ in Defaults.updates([.width, .height]) { relayout() }
    /// ```
    public func updates<Value>(_ keys: [Key<Value>], initial: Bool = true) -> AsyncStream<Void> {
        updates(names: Set(keys.map(\.name)), initial: initial)
    }

    private func updates(names: Set<String>, initial: Bool) -> AsyncStream<Void> {
        AsyncStream { continuation in
            let observation = observe(names: names, options: initial ? [.initial] : [], queue: nil) {
                continuation.yield()
            }
            continuation.onTermination = { _ in observation.invalidate() }
        }
    }

    /// Runs `body` without announcing the changes it makes to observers in this process.
    ///
    /// Covers the changes `body` makes directly, on the calling thread while it runs, to any suite; a `Task` that
    /// `body` starts runs later, elsewhere, and its changes are announced. Other processes still see the new
    /// values when they are written, and cached `@Default` properties still follow them.
    ///
    /// ```swift
    /// Defaults.withoutPropagation {
    ///     Defaults.theme = .dark   // no observer hears of it
    /// }
    /// ```
    public func withoutPropagation<Result>(_ body: () throws -> Result) rethrows -> Result {
        try ThreadContext.silently(body)
    }

    /// A serial queue, not a lock: an observation's handlers are user code, run one at a time, in order, and
    /// outside every lock of the library.
    static func observationQueue() -> DispatchQueue {
        DispatchQueue(label: "TypedDefaults.observation", target: .global())
    }
}

/// A key whose name can be read without knowing its value type.
protocol NamedKey {
    var name: String { get }
}

extension Key: NamedKey {}

/// Whether two values are equal, for types that can say so; other types are never taken to be equal.
func isEqual<Value>(_ lhs: Value, _ rhs: Value) -> Bool {
    guard let lhs = lhs as? any Equatable else { return false }
    return lhs.isEqual(to: rhs)
}

extension Equatable {
    fileprivate func isEqual(to other: Any) -> Bool {
        (other as? Self).map { $0 == self } ?? false
    }
}
