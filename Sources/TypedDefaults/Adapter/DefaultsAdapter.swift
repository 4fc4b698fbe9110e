import Foundation

/// Typed access to one suite of defaults, through the keys of a key store.
///
/// Read and write with a key path into the key store, a dynamic member, or a ``Key`` value. Writes reach the
/// disk as the adapter's ``WritePolicy`` says (by default within 100 ms, and always before a normal exit).
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
        let store: any DefaultsStore
        if defaults === UserDefaults.standard {
            #if TYPED_DEFAULTS_FOUNDATION_STORAGE
            store = UserDefaultsStore.standard
            #else
            do {
                store = try FileStore.standard()
            } catch {
                store = UnavailableStore(name: "standard", reason: error)
            }
            #endif
        } else {
            store = UserDefaultsStore(defaults)
        }
        self.init(
            connection: StoreConnection(store),
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
            connection: StoreConnection(try UserDefaultsStore.suite(suiteName)),
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
            connection: StoreConnection(try FileStore.suite(suiteName, directory: directory)),
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
    /// subscripts report it as a diagnostic, and ``checkFile()`` throws it.
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
        let store: any DefaultsStore
        do {
            #if TYPED_DEFAULTS_FOUNDATION_STORAGE
            store = try UserDefaultsStore.suite(suiteName)
            #else
            store = try FileStore.suite(suiteName)
            #endif
        } catch {
            store = UnavailableStore(name: suiteName, reason: error)
        }
        return DefaultsAdapter(
            connection: StoreConnection(store),
            keyStore: keyStore,
            launchArguments: launchArguments,
            writePolicy: writePolicy
        )
    }
}

// MARK: - Reading and writing

extension DefaultsAdapter {
    /// The value for a key of the key store; setting it stores the value.
    ///
    /// ```swift
    /// Defaults[\.launchCount] += 1
    /// ```
    public subscript<Value>(keyPath: KeyPath<KeyStore, Key<Value>>) -> Value {
        @inlinable get { self[key: keyStore[keyPath: keyPath]] }
        @inlinable nonmutating set { self[key: keyStore[keyPath: keyPath]] = newValue }
    }

    /// The value for a key of the key store, by name; setting it stores the value.
    ///
    /// ```swift
    /// Defaults.volume -= 0.1
    /// ```
    public subscript<Value>(dynamicMember keyPath: KeyPath<KeyStore, Key<Value>>) -> Value {
        @inlinable get { self[key: keyStore[keyPath: keyPath]] }
        @inlinable nonmutating set { self[key: keyStore[keyPath: keyPath]] = newValue }
    }

    /// The value for a key declared as a static property of ``Key``; setting it stores the value.
    ///
    /// Reads and writes exactly like ``subscript(key:)``.
    ///
    /// ```swift
    /// extension Key {
    ///     static var quality: Key<Double> { .init("quality", default: 0.8) }
    /// }
    ///
    /// Defaults[.quality] = 0.5
    /// ```
    public subscript<Value>(_ key: Key<Value>) -> Value {
        @inlinable get { value(for: key) }
        @inlinable nonmutating set { self[key: key] = newValue }
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
        @inlinable get { value(for: key) }
        @inlinable nonmutating set {
            do {
                try set(newValue, for: key)
            } catch {
                reportWriteFailure(error, key: key.name)
            }
        }
    }

    /// Writes `value` for `key`, throwing if it cannot be stored.
    ///
    /// The value is on disk when this returns under the ``WritePolicy/immediate`` policy, and within the
    /// policy's delay otherwise (call ``flush()-3b45i`` to wait for it). Throws
    /// ``DefaultsError/valueNotStorable(key:type:reason:)`` for a value with no stored form (the old value
    /// stays), and, under the immediate policy, ``DefaultsError/writeFailed(suite:key:reason:)`` when the file
    /// cannot be written (the value is kept and written again later).
    ///
    /// ```swift
    /// let backup = Key<Double>("ratio", default: 1)
    /// try Defaults.set(0.75, for: backup)
    /// ```
    @inlinable
    public func set<Value>(_ value: Value, for key: Key<Value>) throws(DefaultsError) {
        // Inlined, so that the value is turned into its stored form in code specialized for its type; the rest
        // is one path for every type.
        try write(storedForm: storedForm(of: value, for: key), forKey: key.name)
    }

    /// Writes `value` for a key of the key store, throwing if it cannot be stored.
    ///
    /// ```swift
    /// try Defaults.set(profile, for: \.profile)
    /// ```
    public func set<Value>(_ value: Value, for keyPath: KeyPath<KeyStore, Key<Value>>) throws(DefaultsError) {
        try set(value, for: keyStore[keyPath: keyPath])
    }

    /// Reads, atomically with respect to every writer of the suite in any process, the stored value of a key
    /// of the key store, lets `body` change it, and writes the result durably before returning it.
    ///
    /// Launch arguments are not consulted: `modify` works on the stored value. `body` runs without any lock
    /// held, so it may use the suite itself (read it, flush it, write other keys); the result is stored only
    /// if the value is still the one `body` saw, and otherwise `body` runs again on the newer value, so it may
    /// run more than once when others write the key at the same time.
    ///
    /// ```swift
    /// try Defaults.modify(\.launchCount) { $0 += 1 }   // exact across threads and processes
    /// ```
    @discardableResult
    public func modify<Value>(
        _ keyPath: KeyPath<KeyStore, Key<Value>>,
        _ body: (inout Value) -> Void
    ) throws(DefaultsError) -> Value {
        try modify(keyStore[keyPath: keyPath], body)
    }

    /// Reads, changes and writes back the stored value of `key` as one atomic, durable step.
    @discardableResult
    public func modify<Value>(_ key: Key<Value>, _ body: (inout Value) -> Void) throws(DefaultsError) -> Value {
        var result: Value?
        ReadModifyWrite.noteWrite(to: store, key: key.name)
        try ThreadState.writing { () throws(DefaultsError) in
            try store.modify(key.name) { stored throws(DefaultsError) in
                var value = decode(stored, for: key)
                body(&value)
                result = value
                return try storedForm(of: value, for: key)
            }
            connection.decoded.forget(key.name)
        }
        launchArguments.reportWriteIfOverridden(key.name, suite: suiteName)
        // `body` ran at least once, or `modify` threw.
        return result ?? key.defaultValue
    }

    /// Makes every earlier write through any adapter on this suite durable before returning.
    ///
    /// Throws ``DefaultsError/writeFailed(suite:key:reason:)`` (and the other file errors) when the file
    /// cannot be written; the writes are kept and written again later.
    ///
    /// ```swift
    /// Defaults.launchCount += 1
    /// try Defaults.flush()
    /// ```
    public func flush() throws(DefaultsError) {
        try store.flush()
    }

    /// Makes every earlier write durable, without blocking the caller's thread.
    ///
    /// ```swift
    /// try await Defaults.flush()
    /// ```
    public func flush() async throws(DefaultsError) {
        let store = self.store
        let result = await withCheckedContinuation { continuation in
            DispatchQueue.global()
                .async {
                    continuation.resume(returning: Result { () throws(DefaultsError) in try store.flush() })
                }
        }
        try result.get()
    }

    /// Throws if the suite's file is damaged, unreadable or not a regular file (for another store, if what
    /// it keeps its values in is; see ``DefaultsStore/checkHealth()``).
    ///
    /// A damaged file has already been preserved beside itself (the error says where) and reads have
    /// fallen back to the last good copy or to defaults; the next write replaces it.
    ///
    /// ```swift
    /// do { try Defaults.checkFile() } catch { print(error) }
    /// ```
    public func checkFile() throws(DefaultsError) {
        try store.checkHealth()
    }

    @inlinable
    func storedForm<Value>(of value: Value, for key: Key<Value>) throws(DefaultsError) -> PropertyListValue? {
        let stored: PropertyListValue?
        do {
            stored = try Value.storedForm(of: value)
        } catch {
            throw .valueNotStorable(key: key.name, type: "\(Value.self)", reason: "\(error)")
        }
        try check(storedForm: stored, forKey: key.name, of: Value.self)
        return stored
    }

    /// Throws if the key's name or the stored form cannot be written to a property list.
    @usableFromInline
    func check(storedForm stored: PropertyListValue?, forKey name: String, of type: Any.Type)
        throws(DefaultsError)
    {
        do {
            try PropertyListValue.checkText(name, what: "the key name")
            try stored?.checkStorable(underKey: name)
        } catch {
            throw .valueNotStorable(key: name, type: "\(type)", reason: "\(error)")
        }
    }

    /// Writes a typed value's checked stored form: what every typed write does once the value is converted.
    @usableFromInline
    func write(storedForm stored: PropertyListValue?, forKey name: String) throws(DefaultsError) {
        try write(.checked(name, stored), key: name)
        launchArguments.reportWriteIfOverridden(name, suite: suiteName)
    }

    @usableFromInline
    func reportWriteFailure(_ error: DefaultsError, key: String?) {
        // While the process exits, nothing will try the write again.
        let lost =
            BackgroundWork.isStopped
            ? "; the process is exiting, so the write of \(key.map { String(reflecting: $0) } ?? "these keys") is lost"
            : ""
        report(.writeFailed, key: key, message: error.description + lost)
    }

    /// Applies `batch` to the store and makes it durable now or soon, as the policy says; an immediate write
    /// that fails is retried later.
    ///
    /// `key` is the one key the batch writes, or `nil` for several or all; `noted` says the caller has already
    /// told a running `modify` which keys these are.
    func write(_ batch: DefaultsBatch, key: String?, noted: Bool = false) throws(DefaultsError) {
        if !noted { ReadModifyWrite.noteWrite(to: store, key: key) }
        // The closure captures no generic value (not `self`), so it costs no type-metadata lookup.
        let (store, decoded) = (self.store, connection.decoded)
        try ThreadState.writing { () throws(DefaultsError) in
            _ = try store.apply(batch)
            decoded.forget(key)
        }
        // While the process exits, a write is flushed at once: the flush at exit may have run already. In a child
        // forked since the last write, the flush the parent arranged runs there first.
        guard let delay = writePolicy.delay, BackgroundWork.willRun() else {
            do {
                try store.flush()
            } catch {
                connection.scheduleFlush(within: .seconds(1))
                throw error
            }
            return
        }
        connection.scheduleFlush(within: delay)
    }

    @inlinable
    func value<Value>(for key: Key<Value>) -> Value {
        if let override = launchArguments.value(for: key, suite: { suiteName }) { return override }
        guard Value.bridge.decodesAtACost else { return decode(storedValue(forKey: key.name), for: key) }
        // A costly bridge's value is kept beside the stored one and decoded again only when that changes.
        guard let stored = storedValue(forKey: key.name) else { return key.defaultValue }
        if let kept = decodedValues.value(forKey: key.name, from: stored, as: Value.self) { return kept }
        let generation = decodedValues.generation
        guard let value = decoded(stored, for: key) else { return key.defaultValue }
        if ValueSemantics.holdsNoReferences(value) {
            decodedValues.keep(DecodedValue(value), forKey: key.name, from: stored, ifStill: generation)
        }
        return value
    }

    @usableFromInline
    var suiteName: String { store.name }

    @usableFromInline
    func storedValue(forKey key: String) -> PropertyListValue? { store.value(forKey: key) }

    /// The value a stored form stands for: the key's default when nothing is stored or it is not a `Value`.
    @inlinable
    func decode<Value>(_ stored: PropertyListValue?, for key: Key<Value>) -> Value {
        // The default is read on a path of its own. Merged into one optional with the decoded value, a computed
        // default's indirect result kept that optional in memory, which cost every read a retain and a release.
        if let stored, let value = decoded(stored, for: key) { return value }
        return key.defaultValue
    }

    /// The value a stored form stands for (the default when nothing is stored), or `nil`, with a diagnostic,
    /// when it is not a `Value`.
    @inlinable
    func decoded<Value>(_ stored: PropertyListValue?, for key: Key<Value>) -> Value? {
        guard let stored else { return key.defaultValue }
        return decoded(stored, for: key)
    }

    /// The value a stored form stands for, or `nil`, with a diagnostic, when it is not a `Value`.
    @inlinable
    func decoded<Value>(_ stored: PropertyListValue, for key: Key<Value>) -> Value? {
        do {
            if let value = try Value.value(fromStoredForm: stored) { return value }
            reportMismatch(stored, for: key, error: nil)
        } catch {
            reportMismatch(stored, for: key, error: error)
        }
        return nil
    }

    /// Reports a stored value that is not a `Value`; kept out of line, so that every read that inlines
    /// ``decoded(_:for:)-(PropertyListValue,_)`` stays small.
    @usableFromInline
    func reportMismatch<Value>(_ stored: PropertyListValue, for key: Key<Value>, error: (any Error)?) {
        let problem = error.map { " (\($0))" } ?? ""
        report(
            .storedValueMismatch,
            key: key.name,
            message: "\(String(reflecting: key.name)) holds \(stored.summary), expected \(Value.self)\(problem); "
                + "reading the default \(key.defaultDescription) and leaving the stored value as it is",
            oncePerProcess: true
        )
    }

    private func report(
        _ kind: DefaultsDiagnostic.Kind,
        key: String?,
        message: String,
        oncePerProcess: Bool = false
    ) {
        DefaultsDiagnostics.report(
            DefaultsDiagnostic(kind: kind, suite: suiteName, key: key, message: message),
            oncePerProcess: oncePerProcess
        )
    }
}

// MARK: - Keys and the suite

extension DefaultsAdapter {
    /// Whether the suite itself stores a value for the key.
    ///
    /// Launch arguments and defaults do not count. Suites opened by name and `.standard` never see values in
    /// Foundation's `.GlobalPreferences`, `ByHost` or `/usr/local/etc` files; an adapter over another
    /// `UserDefaults` instance reads them, as Foundation shows them through, and counts them here too.
    ///
    /// ```swift
    /// if !Defaults.hasKey(\.username) { askForName() }
    /// ```
    public func hasKey<Value>(_ keyPath: KeyPath<KeyStore, Key<Value>>) -> Bool {
        hasKey(keyStore[keyPath: keyPath])
    }

    /// Whether the suite itself stores a value for `key`.
    public func hasKey<Value>(_ key: Key<Value>) -> Bool {
        store.value(forKey: key.name) != nil
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
            try write(.checked(key.name, nil), key: key.name)
        } catch {
            reportWriteFailure(error, key: key.name)
        }
    }

    /// Removes the stored values of several keys in one write, so reads return their defaults again.
    ///
    /// ```swift
    /// Defaults.reset(.quality, .theme)
    /// ```
    public func reset<each Value>(_ keys: repeat Key<each Value>) {
        var names: [String] = []
        for key in repeat each keys { names.append(key.name) }
        reset(names: names)
    }

    /// Removes the stored values of several keys of the key store in one write.
    ///
    /// ```swift
    /// Defaults.reset(\.launchCount, \.username)
    /// ```
    public func reset<each Value>(_ keyPaths: repeat KeyPath<KeyStore, Key<each Value>>) {
        var names: [String] = []
        for keyPath in repeat each keyPaths { names.append(keyStore[keyPath: keyPath].name) }
        reset(names: names)
    }

    /// Removes the stored values of several keys of one type in one write.
    ///
    /// ```swift
    /// Defaults.reset([.width, .height])
    /// ```
    public func reset<Value>(_ keys: [Key<Value>]) {
        reset(names: keys.map(\.name))
    }

    private func reset(names: [String]) {
        // Key by key: inside a `modify` body, resetting other keys is not a write of the one it modifies.
        for name in names { ReadModifyWrite.noteWrite(to: store, key: name) }
        // One batch, unless two names are spellings of one key that Swift's `String` takes to be equal (a file
        // can hold both): a batch, keyed by `String`, holds one of them, so each other goes in a batch of its own.
        var batches: [[String: PropertyListValue?]] = []
        var seen = Set<[UInt8]>()
        for name in names where seen.insert(Array(name.utf8)).inserted {
            if let free = batches.firstIndex(where: { $0.index(forKey: name) == nil }) {
                batches[free].updateValue(nil, forKey: name)
            } else {
                batches.append([name: PropertyListValue?.none])
            }
        }
        do {
            for writes in batches { try write(DefaultsBatch(writes: writes), key: nil, noted: true) }
        } catch {
            reportWriteFailure(error, key: nil)
        }
    }

    /// Whether the key reads as its default: whether the value read (a launch argument, the stored value, or
    /// the default) equals the key's default.
    ///
    /// `true` when nothing usable is stored and when a value equal to the default is. A computed default is
    /// computed for the read and again for the comparison, so one that changes from call to call can compare
    /// unequal.
    ///
    /// ```swift
    /// if Defaults.isDefaultValue(\.volume) { showHint() }
    /// ```
    public func isDefaultValue<Value: Equatable>(_ keyPath: KeyPath<KeyStore, Key<Value>>) -> Bool {
        isDefaultValue(keyStore[keyPath: keyPath])
    }

    /// Whether `key` reads as its default.
    ///
    /// ```swift
    /// if Defaults.isDefaultValue(.quality) { showHint() }
    /// ```
    public func isDefaultValue<Value: Equatable>(_ key: Key<Value>) -> Bool {
        value(for: key) == key.defaultValue
    }

    /// Removes every value the suite stores, including keys this adapter's key store does not declare.
    ///
    /// ```swift
    /// Defaults.removeAll()
    /// ```
    public func removeAll() {
        do {
            try write(DefaultsBatch(removesAll: true), key: nil)
        } catch {
            reportWriteFailure(error, key: nil)
        }
    }
}
