/// Several keys read as one consistent state of the suite.
///
/// Reading keys one by one can mix states: another thread or process may write between two reads, and a
/// pair of settings that belong together (a host and its port) then disagree. A snapshot is taken in one
/// step, from one state of the store, and every read from it sees that state, however the suite changes
/// meanwhile. Launch arguments override keys as they do for the adapter.
///
/// ## Usage
/// ```swift
/// extension DefaultsKeys {
///     var host: Key<String> { .init("host", default: "localhost") }
///     var port: Key<Int> { .init("port", default: 8080) }
/// }
///
/// let settings = Defaults.snapshot()
/// connect(to: settings.host, port: settings.port)   // never one server's host with another's port
/// ```
@dynamicMemberLookup
public struct DefaultsSnapshot<KeyStore: Sendable>: Sendable {
    /// Every value the suite stored when the snapshot was taken, keyed by name.
    public let storedValues: [String: PropertyListValue]
    @usableFromInline let adapter: DefaultsAdapter<KeyStore>

    /// The value of a key of the key store, as it was when the snapshot was taken.
    ///
    /// ```swift
    /// let port = Defaults.snapshot()[\.port]
    /// ```
    public subscript<Value>(keyPath: KeyPath<KeyStore, Key<Value>>) -> Value {
        self[key: adapter.keyStore[keyPath: keyPath]]
    }

    /// The value of a key of the key store, by name, as it was when the snapshot was taken.
    public subscript<Value>(dynamicMember keyPath: KeyPath<KeyStore, Key<Value>>) -> Value {
        self[key: adapter.keyStore[keyPath: keyPath]]
    }

    /// The value of any key, as it was when the snapshot was taken: a launch argument that overrides it, the
    /// stored value, or the key's default.
    public subscript<Value>(key key: Key<Value>) -> Value {
        adapter.read(key) { adapter.decode(storedValues[key.name], for: key) }
    }
}

extension DefaultsAdapter {
    /// Reads the whole suite in one step, to read several keys as one consistent state.
    ///
    /// ```swift
    /// let settings = Defaults.snapshot()
    /// print(settings.host, settings.port)
    /// ```
    public func snapshot() -> DefaultsSnapshot<KeyStore> {
        DefaultsSnapshot(storedValues: store.snapshot(), adapter: self)
    }
}
