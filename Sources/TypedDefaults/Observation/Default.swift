import Dispatch

/// A property backed by a key: `@Default(\.theme) var theme` reads and writes `Defaults.theme`.
///
/// Usable in any struct or class. With `.cached`, the value read is kept in the wrapper, so later reads do
/// not go to the suite at all; writes through the wrapper update it. With `.observed` as well, the cached
/// value follows every change of the key, however made (another adapter, another process, a person
/// editing the file). The projected value observes the key: `$theme.observe { ... }`, `$theme.updates()`.
///
/// ## Usage
/// ```swift
/// struct Settings {
///     @Default(\.theme) var theme
///     @Default(\.volume, options: [.cached, .observed]) var volume
/// }
///
/// let settings = Settings()
/// settings.theme = .dark
/// let token = settings.$volume.observe { change in print(change.newValue) }
/// ```
@propertyWrapper
public struct Default<Value: DefaultsSerializable & Sendable>: Sendable {
    @usableFromInline let adapter: DefaultsAdapter<DefaultsKeys>
    @usableFromInline let key: Key<Value>
    @usableFromInline let cache: DefaultCache<Value>?

    /// A property for a key of ``DefaultsKeys``, read and written through ``Defaults``.
    public init(_ keyPath: KeyPath<DefaultsKeys, Key<Value>>, options: DefaultOptions = []) {
        self.init(key: DefaultsKeys()[keyPath: keyPath], adapter: Defaults, options: options)
    }

    /// A property for a key of any key store, read and written through `adapter`.
    public init<KeyStore>(
        _ keyPath: KeyPath<KeyStore, Key<Value>>,
        adapter: DefaultsAdapter<KeyStore>,
        options: DefaultOptions = []
    ) {
        self.init(key: adapter.keyStore[keyPath: keyPath], adapter: adapter, options: options)
    }

    /// A property for `key`, read and written through `adapter`.
    public init<KeyStore>(key: Key<Value>, adapter: DefaultsAdapter<KeyStore>, options: DefaultOptions = []) {
        self.key = key
        self.adapter = DefaultsAdapter(
            storage: adapter.storage,
            keyStore: DefaultsKeys(),
            launchArguments: adapter.launchArguments,
            writePolicy: adapter.writePolicy
        )
        self.cache =
            options.isEmpty
            ? nil : DefaultCache(key: key.name, storage: adapter.storage, observed: options.contains(.observed))
    }

    /// The key's value.
    public var wrappedValue: Value {
        @inlinable get {
            guard let cache else { return adapter[key: key] }
            let (cached, generation) = cache.state.withLock { ($0.value, $0.generation) }
            if let cached { return cached }
            let value = adapter[key: key]
            // Kept only if no change came in while reading, or the stale value would stick; and only a value
            // that holds no object, which every later reader would share.
            guard ValueSemantics.holdsNoReferences(value) else { return value }
            cache.state.withLock { state in
                if state.generation == generation { state.value = value }
            }
            return value
        }
        nonmutating set {
            adapter[key: key] = newValue
            // Not `newValue` itself: a write can be refused, and the next read then fetches what is stored.
            cache?.state
                .withLock { state in
                    state.value = nil
                    state.generation += 1
                }
        }
    }

    /// The wrapper itself, to observe the key: `$theme.observe { ... }`.
    public var projectedValue: Default<Value> { self }

    /// Calls `handler` every time the key's stored value changes; see ``DefaultsAdapter/observe(_:options:queue:_:)-(Key<Value>,_,_,_)``.
    public func observe(
        options: ObservationOptions = [],
        queue: DispatchQueue? = nil,
        _ handler: @escaping @Sendable (DefaultsChange<Value>) -> Void
    ) -> DefaultsObservation {
        adapter.observe(key, options: options, queue: queue, handler)
    }

    /// The key's values as they change, starting with the current one.
    public func updates() -> AsyncStream<Value> {
        adapter.updates(key)
    }

}

/// The cached value of a ``Default`` property, shared by copies of the wrapper.
@usableFromInline
final class DefaultCache<Value: Sendable>: Sendable {
    @usableFromInline
    struct State: Sendable {
        @usableFromInline var value: Value?
        /// Counts changes, so a read that raced with one does not cache what it read.
        @usableFromInline var generation = 0

        init() {}
    }

    @usableFromInline let state = Locked(State())
    private let registration: (hub: ChangeHub, id: UInt64)?

    init(key: String, storage: any DefaultsStorage, observed: Bool) {
        guard observed else {
            registration = nil
            return
        }
        // Dropping the cached value on every change is enough: the next read fetches the new one. (Decoding
        // here would run a bridge under the suite's lock.)
        let state = self.state
        let id = storage.changes.add(keys: [key]) { _ in
            state.withLock { state in
                state.value = nil
                state.generation += 1
            }
        }
        registration = (storage.changes, id)
    }

    deinit {
        if let registration { registration.hub.remove(registration.id) }
    }
}

/// How a ``Default`` property keeps its value.
///
/// ## Usage
/// ```swift
/// @Default(\.volume, options: [.cached, .observed]) var volume
/// ```
public struct DefaultOptions: OptionSet, Sendable, Hashable {
    /// The options' bits.
    public let rawValue: Int

    /// Creates options from their bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Keep the value read, so later reads do not go to the suite.
    public static let cached = DefaultOptions(rawValue: 1)

    /// Keep the cached value in step with every change of the key, in this process or another (implies
    /// `.cached`).
    public static let observed = DefaultOptions(rawValue: 2)
}
