import Foundation

/// Typed access to one suite of defaults, through the keys of a key store.
///
/// Read and write with a key path into the key store, a dynamic member, or a ``Key`` value. On Linux a write
/// to a suite survives the process once the setter returns, and reaches the suite's file as the adapter's
/// ``WritePolicy`` says (by default within 100 ms, and at once at a normal exit).
/// Reads return the key's default when nothing usable is stored.
///
/// An adapter is a small `Sendable` value: share it between threads and tasks freely. Several adapters can
/// coexist, each with its own suite and key store (an app and its plug-ins, say).
///
/// ## Usage
/// ```swift
/// extension DefaultsKeys {
///     var launchCount: Key<Int> { .init("launchCount", default: 0) }
///     var volume: Key<Double> { .init("volume", default: 0.5) }
/// }
///
/// Defaults[\.launchCount] += 1          // key path
/// Defaults.volume -= 0.1                // dynamic member
///
/// let shared = try DefaultsAdapter(suiteName: "com.example.shared", keyStore: DefaultsKeys())
/// shared.launchCount = 0
/// ```
@dynamicMemberLookup
public struct DefaultsAdapter<KeyStore: Sendable>: Sendable {
    /// The key store whose key paths this adapter reads.
    public let keyStore: KeyStore

    // Reads are inlined into the caller's module so that they are specialized for the value's type: generic
    // code that is not specialized looks up type metadata at run time, which costs more than the read.
    @usableFromInline let connection: StoreConnection
    @usableFromInline let launchArguments: LaunchArguments
    let writePolicy: WritePolicy

    // The store and the cache are held here as well as in the connection: a read through the adapter then
    // needs no retain of either.

    /// The store the adapter reads and writes.
    ///
    /// ```swift
    /// print(Defaults.store.name)   // "standard"
    /// ```
    public let store: any DefaultsStore
    /// The connection's cache of decoded values.
    @usableFromInline let decodedValues: DecodedValueCache

    init(connection: StoreConnection, keyStore: KeyStore, launchArguments: LaunchArguments, writePolicy: WritePolicy) {
        self.connection = connection
        self.store = connection.store
        self.decodedValues = connection.decoded
        self.keyStore = keyStore
        self.launchArguments = launchArguments
        self.writePolicy = writePolicy
    }

    /// Creates an adapter over any store: one of your own, a ``FileStore``, a ``UserDefaultsStore`` or an
    /// ``InMemoryStore``.
    ///
    /// Launch arguments are ignored unless you pass some, so tests are not affected by the test runner's.
    ///
    /// ```swift
    /// let defaults = DefaultsAdapter(store: InMemoryStore(), keyStore: DefaultsKeys())
    /// ```
    public init(
        store: some DefaultsStore,
        keyStore: KeyStore,
        launchArguments: LaunchArguments = .ignored,
        writePolicy: WritePolicy = .coalesced
    ) {
        self.init(
            connection: StoreConnection(store),
            keyStore: keyStore,
            launchArguments: launchArguments,
            writePolicy: writePolicy
        )
    }

    /// Creates an adapter over a `UserDefaults` instance, such as `.standard`.
    ///
    /// On Apple platforms values stay in Foundation's `UserDefaults` (``UserDefaultsStore``), where
    /// `@AppStorage`, Settings bundles and `defaults read` see them. On Linux `.standard` is stored in
    /// `~/.config/<program name>.plist` (or under `$XDG_CONFIG_HOME`) by a ``FileStore``, with every guarantee of
    /// a suite opened by name; Foundation does not tell which file another instance uses, so an adapter over one
    /// goes through Foundation and writes through on every write, without the locking, crash safety and
    /// freshness that suites opened by name get there.
    ///
    /// ```swift
    /// let defaults = DefaultsAdapter(defaults: .standard, keyStore: DefaultsKeys())
    /// ```
    public init(
        defaults: UserDefaults,
        keyStore: KeyStore,
        launchArguments: LaunchArguments = .process,
        writePolicy: WritePolicy = .coalesced
    ) {
        self.init(
            connection: StoreConnection(PlatformStore.store(of: defaults)),
            keyStore: keyStore,
            launchArguments: launchArguments,
            writePolicy: writePolicy
        )
    }

    #if TYPED_DEFAULTS_FOUNDATION_STORAGE
    /// Creates an adapter over the suite named `suiteName`, kept by Foundation's `UserDefaults`
    /// (``UserDefaultsStore/suite(_:)``).
    ///
    /// Name an app group (`group.com.example.shared`) to share values between an app and its extensions; the
    /// system merges every process's writes and tells observers of other processes' changes. On Linux, the same
    /// call keeps the suite in a ``FileStore`` and also takes a `directory`.
    ///
    /// Throws ``DefaultsError/invalidSuiteName(_:reason:)`` for a name Foundation would misuse or refuses.
    ///
    /// ```swift
    /// let shared = try DefaultsAdapter(suiteName: "group.com.example.shared", keyStore: DefaultsKeys())
    /// ```
    public init(
        suiteName: String,
        keyStore: KeyStore,
        launchArguments: LaunchArguments = .process,
        writePolicy: WritePolicy = .coalesced
    ) throws(DefaultsError) {
        self.init(
            connection: StoreConnection(try PlatformStore.suite(suiteName)),
            keyStore: keyStore,
            launchArguments: launchArguments,
            writePolicy: writePolicy
        )
    }
    #else
    /// Creates an adapter over the suite named `suiteName`, stored in `<directory>/<suiteName>.plist` by a
    /// ``FileStore``.
    ///
    /// With no `directory`, the file is where Foundation keeps suites: `$XDG_CONFIG_HOME/<suiteName>.plist`,
    /// or `~/.config/<suiteName>.plist` when `XDG_CONFIG_HOME` is unset, so code that uses
    /// `UserDefaults(suiteName:)` reads the same values. Pass a `directory` (an absolute file URL) to keep a
    /// suite elsewhere, such as a test's temporary directory. Every adapter on the same file in the process
    /// shares one copy of it, and writers in other processes are merged with, never overwritten.
    ///
    /// Throws what ``FileStore/suite(_:directory:)`` throws for a bad name or directory.
    ///
    /// ```swift
    /// let shared = try DefaultsAdapter(suiteName: "com.example.shared", keyStore: DefaultsKeys())
    /// ```
    public init(
        suiteName: String,
        directory: URL? = nil,
        keyStore: KeyStore,
        launchArguments: LaunchArguments = .process,
        writePolicy: WritePolicy = .coalesced
    ) throws(DefaultsError) {
        self.init(
            connection: StoreConnection(try PlatformStore.suite(suiteName, directory: directory)),
            keyStore: keyStore,
            launchArguments: launchArguments,
            writePolicy: writePolicy
        )
    }
    #endif

    /// An adapter over the suite named `suiteName` that cannot fail to be made, for a global constant (one
    /// that takes the place of ``Defaults`` in your module, say).
    ///
    /// A name that ``init(suiteName:directory:keyStore:launchArguments:writePolicy:)`` refuses gives an adapter
    /// whose reads return defaults and whose writes fail with the reason: `set` and `flush` throw it, the
    /// subscripts report it as a diagnostic, and ``checkHealth()`` throws it.
    ///
    /// ```swift
    /// let Defaults = DefaultsAdapter.suite("com.example.shared", keyStore: DefaultsKeys())
    /// ```
    public static func suite(
        _ suiteName: String,
        keyStore: KeyStore,
        launchArguments: LaunchArguments = .process,
        writePolicy: WritePolicy = .coalesced
    ) -> DefaultsAdapter {
        DefaultsAdapter(
            connection: StoreConnection(PlatformStore.suiteOrUnavailable(suiteName)),
            keyStore: keyStore,
            launchArguments: launchArguments,
            writePolicy: writePolicy
        )
    }
}
