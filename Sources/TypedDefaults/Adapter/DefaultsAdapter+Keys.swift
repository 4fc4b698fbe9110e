// Keys and the suite: whether the suite stores a key, resetting keys, comparing with the default, removing all.

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
