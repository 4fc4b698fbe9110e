extension Key {
    /// Removes the key's stored value from ``Defaults`` (`.standard`), so reads return the default again.
    ///
    /// A key names no suite: for another suite, call `reset(_:)` on its
    /// adapter.
    ///
    /// ```swift
    /// Key<Double>.quality.reset()
    /// ```
    public func reset() {
        Defaults.reset(self)
    }
}

extension Key where Value: Equatable {
    /// Whether the key reads as its default in ``Defaults`` (`.standard`).
    ///
    /// A key names no suite: for another suite, call `isDefaultValue(_:)` on
    /// its adapter.
    ///
    /// ```swift
    /// if Key<Double>.quality.isDefaultValue { showHint() }
    /// ```
    public var isDefaultValue: Bool {
        Defaults.isDefaultValue(self)
    }
}
