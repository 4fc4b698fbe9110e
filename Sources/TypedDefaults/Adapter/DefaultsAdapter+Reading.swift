// The read rule and the reads that follow it: the adapter's, a `.cached` `@Default` property's and a snapshot's.
extension DefaultsAdapter {
    /// The one rule every read of a key follows: a launch argument that overrides `key`, else the stored value,
    /// else the key's default.
    ///
    /// `stored` reads the stored value, and the default when nothing usable is stored, through
    /// ``decode(_:for:)`` (or a value kept from it); where it looks is the caller's: the store, a snapshot's
    /// copy, or a property's slot. The default is returned on a path of its own rather than as the `nil` of an
    /// optional: a computed default's indirect result would keep that optional in memory, which costs every
    /// read a retain and a release.
    @inlinable
    func read<Value>(_ key: Key<Value>, stored: () -> Value) -> Value {
        if let override = launchArguments.value(for: key, suite: { suiteName }) { return override }
        return stored()
    }

    @inlinable
    func value<Value>(for key: Key<Value>) -> Value {
        read(key) { storedOrKeptValue(for: key) }
    }

    /// The value stored for `key`, or its default when nothing usable is stored.
    ///
    /// A costly bridge's value is kept beside the stored one and decoded again only when that changes.
    @inlinable
    func storedOrKeptValue<Value>(for key: Key<Value>) -> Value {
        guard Value.bridge.decodesAtACost else { return decode(storedValue(forKey: key.name), for: key) }
        guard let stored = storedValue(forKey: key.name) else { return key.defaultValue }
        if let kept = decodedValues.value(forKey: key.name, from: stored, as: Value.self) { return kept }
        let generation = decodedValues.generation
        guard let value = decoded(stored, for: key) else { return key.defaultValue }
        if ValueSemantics.holdsNoReferences(value) {
            decodedValues.keep(DecodedValue(value), forKey: key.name, from: stored, ifStill: generation)
        }
        return value
    }

    /// The value of `key` for a `.cached` `@Default` property, which holds the key's slot in the cache.
    ///
    /// The value the slot keeps is trusted without asking the store: every change of the key empties the slot
    /// (the key's tracker sees to it while the property lives).
    @inlinable
    func value<Value>(for key: Key<Value>, keptIn slot: DecodedValueCache.Slot) -> Value {
        read(key) {
            let (kept, generation) = decodedValues.kept(in: slot, as: Value.self)
            if let kept { return kept }
            return fetch(key, into: slot, ifStill: generation)
        }
    }

    /// Reads the stored value of `key` and keeps it in `slot`, unless a value was dropped since `generation`;
    /// the key's default when nothing usable is stored.
    ///
    /// Kept out of line (but specialized for each `Value`), so that the usual path, a value already kept, stays
    /// small enough to be inlined where it is read.
    @inlinable @inline(never)
    func fetch<Value>(_ key: Key<Value>, into slot: DecodedValueCache.Slot, ifStill generation: UInt64) -> Value {
        // A default (nothing stored, or a stored value that is not a `Value`) is not kept: it is the key's
        // own, and another key of the same name and type may have another.
        guard let stored = storedValue(forKey: key.name) else { return key.defaultValue }
        guard let value = decoded(stored, for: key) else { return key.defaultValue }
        // Only a value that holds no object, which every later reader would share.
        if ValueSemantics.holdsNoReferences(value) {
            decodedValues.keep(DecodedValue(value), forKey: key.name, in: slot, from: stored, ifStill: generation)
        }
        return value
    }
}
