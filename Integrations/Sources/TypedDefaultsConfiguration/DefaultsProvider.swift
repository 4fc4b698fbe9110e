import Configuration
import Dispatch
import TypedDefaults

/// A swift-configuration provider over a TypedDefaults suite: settings written at run time (by the app, by
/// the `defaults` tool, by another process) read through a `ConfigReader`, and followed live by its watches.
///
/// A config key reads the defaults key of its components joined by `.`: `http.timeout` reads the key
/// `"http.timeout"`. A value reads as the TypedDefaults key of the matching Swift type would read it (an int
/// from a stored integer, a real with an integral value or integer text; the repository's
/// `Docs/SwiftConfiguration.md` has the table); a value of another type throws
/// ``DefaultsProviderError/valueNotConvertible(key:type:stored:)``, which the reader handles as it handles its
/// own providers' conversion errors. The provider reads stored values only: launch arguments such as
/// `-http.timeout 3` are left to swift-configuration's `CommandLineArgumentsProvider`.
///
/// ``snapshot()`` is one state of the suite, never half of a write. ``watchValue(forKey:type:updatesHandler:)``
/// and ``watchSnapshot(updatesHandler:)`` start with the current value and then deliver each change the suite's
/// store announces once, in order: writes in this process and, for a suite's file, other processes' writes,
/// within milliseconds.
///
/// ## Usage
/// ```swift
/// import Configuration
/// import TypedDefaults
/// import TypedDefaultsConfiguration
///
/// let adapter = try DefaultsAdapter(suiteName: "app", keyStore: DefaultsKeys())
/// let reader = ConfigReader(providers: [
///     EnvironmentVariablesProvider(),   // HTTP_TIMEOUT=3 wins over the suite
///     DefaultsProvider(adapter),
/// ])
/// let timeout = reader.int(forKey: "http.timeout", default: 5)
/// ```
public struct DefaultsProvider: Sendable {
    private let store: any DefaultsStore
    private let observe: SuiteUpdates.Observe
    private let secrets: SecretsSpecifier<String, PropertyListValue>

    /// Creates a provider over the suite of `adapter`, whatever its store or key store.
    ///
    /// Values are not secret unless `secretsSpecifier` says so, by defaults key (`"db.password"`) or by key
    /// and stored value; a reader's `isSecret: true` also marks a value secret, as for every provider.
    ///
    /// ```swift
    /// let adapter = try DefaultsAdapter(suiteName: "app", keyStore: DefaultsKeys())
    /// let provider = DefaultsProvider(adapter, secretsSpecifier: .specific(["db.password"]))
    /// ```
    public init<KeyStore>(
        _ adapter: DefaultsAdapter<KeyStore>,
        secretsSpecifier: SecretsSpecifier<String, PropertyListValue> = .none
    ) {
        store = adapter.store
        observe = { key, queue, handler in
            guard let key else { return adapter.observeStoredValues(queue: queue, handler) }
            // By name, so that a store which can watch only the keys observed one by one (key-value observing,
            // on Apple platforms) watches this one.
            return adapter.observe(Key<PropertyListValue?>(key), queue: queue) { handler([$0]) }
        }
        secrets = secretsSpecifier
    }

    /// The defaults key a config key reads: its components joined by `.`.
    static func defaultsKey(for key: AbsoluteConfigKey) -> String {
        key.components.joined(separator: ".")
    }

    private func snapshot(of values: [String: PropertyListValue]) -> SuiteSnapshot {
        SuiteSnapshot(providerName: providerName, values: values, secrets: secrets)
    }

    private func updates(of key: String?) -> SuiteUpdates {
        SuiteUpdates(store: store, key: key, observe: observe)
    }
}

extension DefaultsProvider: ConfigProvider {
    /// `DefaultsProvider[<suite name>]`, as access reports and logs show it.
    public var providerName: String { "DefaultsProvider[\(store.name)]" }

    /// The value stored now for the key's defaults key, as `type`; `nil` when none is stored.
    ///
    /// Throws ``DefaultsProviderError/valueNotConvertible(key:type:stored:)`` when the stored value is not a
    /// `type`.
    public func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        let name = Self.defaultsKey(for: key)
        let value = try store.value(forKey: name)
            .map { stored throws(DefaultsProviderError) in
                ConfigValue(
                    try stored.configContent(as: type, key: name),
                    isSecret: secrets.isSecret(key: name, value: stored)
                )
            }
        return LookupResult(encodedKey: name, value: value)
    }

    /// The value after reading the suite's file again, so that another process's write of a moment ago is seen.
    ///
    /// A file's reads are otherwise refreshed in the background, within about 50 ms of a write.
    public func fetchValue(forKey key: AbsoluteConfigKey, type: ConfigType) async throws -> LookupResult {
        // A damaged file is not this lookup's failure: it is preserved and reported by the store, and reads,
        // this one included, fall back to the last good copy.
        try? store.checkHealth()
        return try value(forKey: key, type: type)
    }

    /// Every value of the suite as one state.
    public func snapshot() -> any ConfigSnapshot {
        snapshot(of: store.snapshot())
    }

    // `nonisolated(nonsending)`, as swift-configuration declares the requirement: the handler runs on the caller's
    // executor, so it need not be `Sendable`.

    /// Calls `updatesHandler` with the key's value now and after each change of it, until the handler returns
    /// or its task is cancelled.
    nonisolated(nonsending) public func watchValue<Return: ~Copyable>(
        forKey key: AbsoluteConfigKey,
        type: ConfigType,
        updatesHandler:
            nonisolated(nonsending) (
                _ updates: ConfigUpdatesAsyncSequence<Result<LookupResult, any Error>, Never>
            ) async throws -> Return
    ) async throws -> Return {
        let name = Self.defaultsKey(for: key)
        let updates = updates(of: name)
        defer { updates.stop() }
        let provider = self
        let values = updates.states.map { state -> Result<LookupResult, any Error> in
            Result {
                LookupResult(
                    encodedKey: name,
                    value: try provider.snapshot(of: state).configValue(forKey: name, type: type)
                )
            }
        }
        return try await updatesHandler(ConfigUpdatesAsyncSequence(values))
    }

    /// Calls `updatesHandler` with the suite's state now and after each batch of changes, until the handler
    /// returns or its task is cancelled.
    nonisolated(nonsending) public func watchSnapshot<Return: ~Copyable>(
        updatesHandler:
            nonisolated(nonsending) (
                _ updates: ConfigUpdatesAsyncSequence<any ConfigSnapshot, Never>
            ) async throws -> Return
    ) async throws -> Return {
        let updates = updates(of: nil)
        defer { updates.stop() }
        let provider = self
        let snapshots = updates.states.map { values -> any ConfigSnapshot in provider.snapshot(of: values) }
        return try await updatesHandler(ConfigUpdatesAsyncSequence(snapshots))
    }
}
