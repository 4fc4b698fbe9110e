import Dispatch

/// A property backed by a key: `@Default(\.theme) var theme` reads and writes `Defaults.theme`.
///
/// Usable in any struct or class. With `.cached`, the value read is kept, so later reads do not go to the
/// suite at all (a key's default is not kept: reading it costs one lookup in the suite); every change of the
/// key, however made (the wrapper, another adapter, another process, a person editing the file), drops it,
/// and the next read fetches the new value. The projected value observes the key: `$theme.observe { ... }`,
/// `$theme.updates()`.
///
/// Reading the property is an access the Observation framework tracks: inside `withObservationTracking`, or
/// in a SwiftUI view's `body` (where `@Default` is a `DynamicProperty`, with `$theme.binding` and
/// `$theme.publisher` beside it), the next change of the key, however made, is announced, shortly after it
/// and on a queue of the library's. Changes made inside ``DefaultsAdapter/withoutPropagation(_:)`` are not,
/// as to any observer. The announcements come while any property of the key made from that adapter lives.
///
/// In an `@Observable` class, mark the property `@ObservationIgnored`: the macro then leaves it alone (it
/// would otherwise declare the wrapper's storage a second time), and the property is still tracked, through
/// its key, including other processes' changes.
///
/// ## Usage
/// ```swift
/// struct Settings {
///     @Default(\.theme) var theme
///     @Default(\.volume, options: .cached) var volume
/// }
///
/// let settings = Settings()
/// settings.theme = .dark
/// let token = settings.$volume.observe { change in print(change.newValue) }
///
/// withObservationTracking {
///     print(settings.theme)
/// } onChange: {
///     print("theme changed")
/// }
///
/// @Observable final class Player {
///     @ObservationIgnored @Default(.quality) var quality
///     var isPlaying = false
/// }
/// ```
@propertyWrapper
public struct Default<Value: DefaultsSerializable & Sendable>: Sendable {
    @usableFromInline let adapter: DefaultsAdapter<DefaultsKeys>
    @usableFromInline let key: Key<Value>
    /// With `.cached`, where the value is kept: its key's slot in the adapter's cache.
    @usableFromInline let slot: DecodedValueCache.Slot?
    /// Tells the Observation framework (and so SwiftUI) of the key's reads and changes.
    @usableFromInline let tracker: KeyTracker

    /// A property for a key of ``DefaultsKeys``, read and written through ``Defaults``.
    public init(_ keyPath: KeyPath<DefaultsKeys, Key<Value>>, options: DefaultOptions = []) {
        self.init(key: DefaultsKeys()[keyPath: keyPath], adapter: Defaults, options: options)
    }

    /// A property for a key declared as a static property of ``Key``, read and written through ``Defaults``.
    ///
    /// ```swift
    /// @Default(.quality) var quality
    /// ```
    public init(_ key: Key<Value>, options: DefaultOptions = []) {
        self.init(key: key, adapter: Defaults, options: options)
    }

    /// A property for a key declared as a static property of ``Key``, read and written through `adapter`.
    ///
    /// ```swift
    /// @Default(.quality, adapter: sharedDefaults) var quality
    /// ```
    public init<KeyStore>(_ key: Key<Value>, adapter: DefaultsAdapter<KeyStore>, options: DefaultOptions = []) {
        self.init(key: key, adapter: adapter, options: options)
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
            connection: adapter.connection,
            keyStore: DefaultsKeys(),
            launchArguments: adapter.launchArguments,
            writePolicy: adapter.writePolicy
        )
        self.slot = options.isEmpty ? nil : adapter.connection.decoded.slot(forKey: key.name)
        self.tracker = adapter.connection.tracker(forKey: key.name)
    }

    /// The key's value.
    public var wrappedValue: Value {
        @inlinable get {
            // Registered first, whatever the read returns: a tracked read is told of the key's next change.
            tracker.access()
            guard let slot else { return adapter[key: key] }
            return adapter.value(for: key, keptIn: slot)
        }
        @inlinable nonmutating set {
            // The write drops the kept value: it can be refused, and the next read then fetches what is stored.
            adapter[key: key] = newValue
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

    /// The key's values as they change, starting with the current one unless `initial` is `false`.
    public func updates(initial: Bool = true) -> AsyncStream<Value> {
        adapter.updates(key, initial: initial)
    }

    /// Removes the stored value, so the property reads the key's default again.
    ///
    /// ```swift
    /// $quality.reset()
    /// ```
    public func reset() {
        adapter.reset(key)
    }
}

extension Default where Value: Equatable {
    /// Whether the property reads as its key's default.
    ///
    /// ```swift
    /// if $quality.isDefaultValue { showHint() }
    /// ```
    public var isDefaultValue: Bool {
        adapter.isDefaultValue(key)
    }
}

/// How a ``Default`` property keeps its value.
///
/// ## Usage
/// ```swift
/// @Default(\.volume, options: .cached) var volume
/// ```
public struct DefaultOptions: OptionSet, Sendable, Hashable {
    /// The options' bits.
    public let rawValue: Int

    /// Creates options from their bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Keep the value read, so later reads do not go to the suite, until the key changes, however made (in
    /// this process or another).
    public static let cached = DefaultOptions(rawValue: 1)

    /// The same as ``cached``, under SwiftyUserDefaults' name.
    ///
    /// Every cached property follows its key's changes, in this process or another, for the Observation
    /// framework's sake, so there is nothing for a second option to add; this name lets code written for
    /// SwiftyUserDefaults compile, with a warning that points to ``cached``.
    ///
    /// ```swift
    /// @Default(\.volume, options: .cached) var volume   // rather than [.cached, .observed]
    /// ```
    @available(*, deprecated, renamed: "cached", message: "a cached property follows every change of its key")
    public static let observed = DefaultOptions.cached
}
