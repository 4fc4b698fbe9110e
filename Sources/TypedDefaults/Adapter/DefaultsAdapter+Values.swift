import Foundation

// Reading and writing values: the subscripts, `set`, `modify`, `flush`, and the read and write paths under them.

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
    /// On Linux the value is in the suite's journal when this returns, so it survives the process, and in the
    /// file at once under the ``WritePolicy/immediate`` policy, within 100 ms otherwise (call ``flush()-3b45i``
    /// to wait for it). Throws ``DefaultsError/valueNotStorable(key:type:reason:)`` for a value with no stored
    /// form (the old value stays), and ``DefaultsError/writeFailed(suite:key:reason:)`` when it cannot be made
    /// durable now (a full disk, or another process holding the suite's lock for more than a second): the value
    /// is kept, reads return it, and it is written again later.
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
        try ThreadContext.writing { () throws(DefaultsError) in
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
    /// do { try Defaults.checkHealth() } catch { print(error) }
    /// ```
    public func checkHealth() throws(DefaultsError) {
        try store.checkHealth()
    }

    /// The same as ``checkHealth()``, which is the store's name for the check too.
    ///
    /// ```swift
    /// try Defaults.checkHealth()   // rather than checkFile()
    /// ```
    @available(*, deprecated, renamed: "checkHealth()")
    public func checkFile() throws(DefaultsError) {
        try checkHealth()
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
        do {
            try ThreadContext.writing { () throws(DefaultsError) in
                _ = try store.apply(batch)
                decoded.forget(key)
            }
        } catch {
            // A store keeps a write it could not make durable (the suite's journal could not be appended to), and
            // a flush makes it so.
            if case .writeFailed = error { connection.scheduleFlush(within: .seconds(1)) }
            throw error
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
        // A suite's store rebuilds its file by itself; a flush arranged here as well would rebuild it a second time.
        if connection.holdsWrites { connection.scheduleFlush(within: delay) }
    }

    @usableFromInline
    var suiteName: String { store.name }

    @usableFromInline
    func storedValue(forKey key: String) -> PropertyListValue? { store.value(forKey: key) }

    /// The value a stored form stands for: the key's default when nothing is stored or it is not a `Value`.
    @inlinable
    func decode<Value>(_ stored: PropertyListValue?, for key: Key<Value>) -> Value {
        // The default is read on a path of its own: merged into one optional with the decoded value, a computed
        // default's indirect result would keep that optional in memory, a retain and a release on every read.
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
