import Foundation

/// Typed access to one suite of defaults, through the keys of a key store.
///
/// Read and write with a key path into the key store, a dynamic member, or a ``Key`` value. Writes are on
/// disk when the setter returns. Reads return the key's default when nothing usable is stored.
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

    let storage: any DefaultsStorage
    let launchArguments: LaunchArguments

    init(storage: any DefaultsStorage, keyStore: KeyStore, launchArguments: LaunchArguments) {
        self.storage = storage
        self.keyStore = keyStore
        self.launchArguments = launchArguments
    }

    /// Creates an adapter over a `UserDefaults` instance, such as `.standard`.
    ///
    /// ```swift
    /// let defaults = DefaultsAdapter(defaults: .standard, keyStore: DefaultsKeys())
    /// ```
    public init(defaults: UserDefaults, keyStore: KeyStore, launchArguments: LaunchArguments = .process) {
        self.init(
            storage: UserDefaultsStorage(defaults: defaults),
            keyStore: keyStore,
            launchArguments: launchArguments
        )
    }

    /// Creates an adapter over the suite named `suiteName`, stored in `<directory>/<suiteName>.plist`.
    ///
    /// With no `directory`, the file is where Foundation keeps suites: `$XDG_CONFIG_HOME/<suiteName>.plist`,
    /// or `~/.config/<suiteName>.plist` when `XDG_CONFIG_HOME` is unset, so code that uses
    /// `UserDefaults(suiteName:)` directly reads the same values. Pass a `directory` (an absolute file URL) to
    /// keep a suite elsewhere, such as a test's temporary directory; this relies on Foundation on Linux
    /// accepting an absolute path as a domain name.
    ///
    /// Throws ``DefaultsError/invalidSuiteName(_:reason:)`` for a name that is empty, is `.` or `..`, contains
    /// `/` or a control character, is longer than a file name allows, names the global domain, or is this
    /// program's own domain (use ``Defaults`` for that), and ``DefaultsError/invalidDirectory(_:reason:)`` for
    /// a directory that is not an absolute file URL.
    ///
    /// ```swift
    /// let shared = try DefaultsAdapter(suiteName: "com.example.shared", keyStore: DefaultsKeys())
    /// ```
    public init(
        suiteName: String,
        directory: URL? = nil,
        keyStore: KeyStore,
        launchArguments: LaunchArguments = .process
    ) throws(DefaultsError) {
        self.init(
            storage: try UserDefaultsStorage(suiteName: suiteName, directory: directory),
            keyStore: keyStore,
            launchArguments: launchArguments
        )
    }

    /// Creates an adapter over an in-memory store, for tests.
    ///
    /// ```swift
    /// let defaults = DefaultsAdapter(store: InMemoryStore(), keyStore: DefaultsKeys())
    /// ```
    public init(store: InMemoryStore, keyStore: KeyStore, launchArguments: LaunchArguments = .ignored) {
        self.init(storage: store, keyStore: keyStore, launchArguments: launchArguments)
    }
}

// MARK: - Reading and writing

extension DefaultsAdapter {
    /// The value for a key of the key store; setting it writes through to disk.
    ///
    /// ```swift
    /// Defaults[\.launchCount] += 1
    /// ```
    public subscript<Value>(keyPath: KeyPath<KeyStore, Key<Value>>) -> Value {
        get { self[key: keyStore[keyPath: keyPath]] }
        nonmutating set { self[key: keyStore[keyPath: keyPath]] = newValue }
    }

    /// The value for a key of the key store, by name; setting it writes through to disk.
    ///
    /// ```swift
    /// Defaults.volume -= 0.1
    /// ```
    public subscript<Value>(dynamicMember keyPath: KeyPath<KeyStore, Key<Value>>) -> Value {
        get { self[key: keyStore[keyPath: keyPath]] }
        nonmutating set { self[key: keyStore[keyPath: keyPath]] = newValue }
    }

    /// The value for any key, whether or not it lives in the key store.
    ///
    /// Reading returns, in order: a launch argument that overrides the key, the stored value, or the key's
    /// default (also when the stored value is not a `Value`, with a diagnostic). Setting cannot throw: a value
    /// that cannot be stored leaves the old value and reports a diagnostic, and so does a write that cannot
    /// reach the disk (the value is then kept in memory and written with the next successful write). Use
    /// ``set(_:for:)-(_,Key<Value>)`` to get the error instead.
    ///
    /// ```swift
    /// let flag = Key<Bool>("flag", default: false)
    /// Defaults[key: flag] = true
    /// ```
    public subscript<Value>(key key: Key<Value>) -> Value {
        get { value(for: key) }
        nonmutating set {
            do {
                try set(newValue, for: key)
            } catch {
                report(.writeFailed, key: key.name, message: error.description)
            }
        }
    }

    /// Writes `value` for `key`, throwing if it cannot be stored; on return the value is on disk.
    ///
    /// Throws ``DefaultsError/valueNotStorable(key:type:reason:)`` for a value with no stored form (the old
    /// value stays), and ``DefaultsError/writeFailed(suite:key:reason:)`` when the file cannot be written.
    ///
    /// ```swift
    /// let backup = Key<Double>("ratio", default: 1)
    /// try Defaults.set(0.75, for: backup)
    /// ```
    public func set<Value>(_ value: Value, for key: Key<Value>) throws(DefaultsError) {
        let stored: PropertyListValue?
        do {
            try PropertyListValue.checkText(key.name, what: "the key name")
            stored = try Value.bridge.serialize(value)
            try stored?.checkStorable()
        } catch {
            throw .valueNotStorable(key: key.name, type: "\(Value.self)", reason: "\(error)")
        }
        try storage.setValue(stored, forKey: key.name)
        launchArguments.reportWriteIfOverridden(key.name, suite: storage.suiteName)
    }

    /// Writes `value` for a key of the key store, throwing if it cannot be stored.
    ///
    /// ```swift
    /// try Defaults.set(profile, for: \.profile)
    /// ```
    public func set<Value>(_ value: Value, for keyPath: KeyPath<KeyStore, Key<Value>>) throws(DefaultsError) {
        try set(value, for: keyStore[keyPath: keyPath])
    }

    private func value<Value>(for key: Key<Value>) -> Value {
        if let override = launchArguments.value(for: key, suite: storage.suiteName) { return override }
        guard let stored = storage.value(forKey: key.name) else { return key.defaultValue }
        let problem: String
        do {
            if let value = try Value.bridge.deserialize(stored) { return value }
            problem = ""
        } catch {
            problem = " (\(error))"
        }
        report(
            .storedValueMismatch,
            key: key.name,
            message: "\(String(reflecting: key.name)) holds \(stored.summary), expected \(Value.self)\(problem); "
                + "reading the default \(key.defaultValue) and leaving the stored value as it is",
            oncePerProcess: true
        )
        return key.defaultValue
    }

    private func report(
        _ kind: DefaultsDiagnostic.Kind,
        key: String,
        message: String,
        oncePerProcess: Bool = false
    ) {
        DefaultsDiagnostics.report(
            DefaultsDiagnostic(kind: kind, suite: storage.suiteName, key: key, message: message),
            oncePerProcess: oncePerProcess
        )
    }
}

// MARK: - Keys and the suite

extension DefaultsAdapter {
    /// Whether the suite itself stores a value for the key.
    ///
    /// Launch arguments and defaults do not count, and neither do values that Foundation on Linux shows
    /// through from `.GlobalPreferences`, `ByHost` or `/usr/local/etc` files (reads do return those).
    ///
    /// ```swift
    /// if !Defaults.hasKey(\.username) { askForName() }
    /// ```
    public func hasKey<Value>(_ keyPath: KeyPath<KeyStore, Key<Value>>) -> Bool {
        hasKey(keyStore[keyPath: keyPath])
    }

    /// Whether the suite itself stores a value for `key`.
    public func hasKey<Value>(_ key: Key<Value>) -> Bool {
        storage.hasValue(forKey: key.name)
    }

    /// Removes the stored value, so reads return the key's default again.
    ///
    /// ```swift
    /// Defaults.reset(\.launchCount)
    /// ```
    public func reset<Value>(_ keyPath: KeyPath<KeyStore, Key<Value>>) {
        reset(keyStore[keyPath: keyPath])
    }

    /// Removes the stored value for `key`; a failed write is reported as a diagnostic.
    public func reset<Value>(_ key: Key<Value>) {
        do {
            try storage.setValue(nil, forKey: key.name)
        } catch {
            report(.writeFailed, key: key.name, message: error.description)
        }
    }

    /// Removes every value the suite stores, including keys this adapter's key store does not declare.
    ///
    /// ```swift
    /// Defaults.removeAll()
    /// ```
    public func removeAll() {
        do {
            try storage.removeAll()
        } catch {
            DefaultsDiagnostics.report(
                DefaultsDiagnostic(kind: .writeFailed, suite: storage.suiteName, key: nil, message: error.description),
                oncePerProcess: false
            )
        }
    }
}
