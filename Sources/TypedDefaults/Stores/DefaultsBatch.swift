/// Writes that a ``DefaultsStore`` applies together, or not at all.
///
/// A batch optionally removes every value first (``removesAll``), then stores or removes values by key
/// (``writes``). With ``expected`` set, it applies only if the store still holds those values: that is how
/// `modify` changes a value atomically without holding a lock while user code runs.
///
/// Stores need not interpret batches themselves: ``apply(to:)`` applies one to a dictionary of values.
///
/// ## Usage
/// ```swift
/// let batch = DefaultsBatch(writes: ["launchCount": .integer(2)], expected: .values(["launchCount": .integer(1)]))
/// var values: [String: PropertyListValue] = ["launchCount": .integer(5)]
/// batch.apply(to: &values)   // nil: the value is no longer 1, so nothing changes
/// ```
public struct DefaultsBatch: Sendable, Equatable {
    /// What a batch requires the store to hold before it applies.
    public enum Expectation: Sendable, Hashable {
        /// Each key holds the value given (`nil`: holds none); other keys may hold anything.
        case values([String: PropertyListValue?])
        /// The store holds exactly these values, and no others.
        case snapshot([String: PropertyListValue])
    }

    /// Whether every stored value is removed before ``writes`` apply.
    public var removesAll: Bool
    /// The value to store for each key, or `nil` to remove the key.
    public var writes: [String: PropertyListValue?] {
        get {
            switch storage {
            case .one(let key, let value): [key: value]
            case .many(let writes): writes
            }
        }
        set {
            storage = .many(newValue)
            isChecked = false
        }
    }

    /// The writes, without a dictionary for the adapter's batches of one write (the common case).
    private enum Writes: Sendable {
        case one(String, PropertyListValue?)
        case many([String: PropertyListValue?])
    }

    private var storage: Writes
    /// Whether ``writes`` passed ``checkStorable()`` (the adapter checks what it writes before it makes a
    /// batch), so that a store's own check costs nothing then.
    var isChecked = false
    /// What the store must hold for the batch to apply; `nil` applies it whatever the store holds.
    public var expected: Expectation?

    /// A batch that stores or removes values by key, if the store holds what is `expected`.
    ///
    /// ```swift
    /// let batch = DefaultsBatch(writes: ["theme": .string("dark"), "legacyTheme": nil])
    /// ```
    public init(writes: [String: PropertyListValue?] = [:], removesAll: Bool = false, expected: Expectation? = nil) {
        self.storage = .many(writes)
        self.removesAll = removesAll
        self.expected = expected
    }

    /// A batch that replaces everything the store holds with `values`.
    ///
    /// ```swift
    /// let reset = DefaultsBatch(replacingAllWith: [:])
    /// ```
    public init(replacingAllWith values: [String: PropertyListValue], expected: Expectation? = nil) {
        self.init(writes: values.mapValues { $0 }, removesAll: true, expected: expected)
    }

    /// Throws ``DefaultsError/valueNotStorable(key:type:reason:)`` for a key or value that a property-list
    /// file cannot carry back exactly (a control character in a string, a value nested too deep, a date
    /// outside the years 1 to 9999, …).
    ///
    /// The built-in stores check every batch they are given, so that a batch applied to them directly cannot
    /// leave a file that no reader accepts; a store of your own may call this too.
    ///
    /// ```swift
    /// try DefaultsBatch(writes: ["name": .string("bell\u{7}")]).checkStorable()   // throws
    /// ```
    public func checkStorable() throws(DefaultsError) {
        guard !isChecked else { return }
        try forEachWrite { key, value throws(DefaultsError) in
            do {
                _ = try PropertyListValue.checkText(key, what: "the key name")
                _ = try value?.checkStorable(underKey: key)
            } catch {
                throw .valueNotStorable(key: key, type: "PropertyListValue", reason: "\(error)")
            }
        }
    }

    /// A batch of one write the adapter has already checked.
    static func checked(_ key: String, _ value: PropertyListValue?) -> DefaultsBatch {
        DefaultsBatch(storage: .one(key, value), isChecked: true)
    }

    private init(storage: Writes, isChecked: Bool) {
        self.storage = storage
        self.removesAll = false
        self.expected = nil
        self.isChecked = isChecked
    }

    /// The keys the batch writes or removes.
    var writtenKeys: [String] {
        switch storage {
        case .one(let key, _): [key]
        case .many(let writes): Array(writes.keys)
        }
    }

    /// Batches are equal when they write, remove and expect the same.
    public static func == (lhs: DefaultsBatch, rhs: DefaultsBatch) -> Bool {
        lhs.removesAll == rhs.removesAll && lhs.writes == rhs.writes && lhs.expected == rhs.expected
    }

    /// Whether `values` are what the batch expects (always, for a batch without expectations).
    ///
    /// Values compare bit for bit (``PropertyListValue/isIdentical(to:)``): `0.0` and `-0.0` differ.
    ///
    /// ```swift
    /// DefaultsBatch(expected: .values(["a": nil])).holds(for: [:])   // true
    /// ```
    public func holds(for values: [String: PropertyListValue]) -> Bool {
        switch expected {
        case nil:
            true
        case .values(let expected):
            expected.allSatisfy { key, value in values[key].isIdentical(to: value) }
        case .snapshot(let expected):
            values.isIdentical(to: expected)
        }
    }

    /// Applies the batch to `values` in place and returns what changed, or returns `nil` and leaves `values`
    /// alone when ``expected`` does not hold.
    ///
    /// The changes are in the order a store announces them; a value written again unchanged is no change.
    ///
    /// ```swift
    /// var values: [String: PropertyListValue] = ["a": .integer(1)]
    /// let changes = DefaultsBatch(writes: ["a": .integer(2)]).apply(to: &values)   // a: 1 → 2
    /// ```
    @discardableResult
    public func apply(to values: inout [String: PropertyListValue]) -> [DefaultsStoreChange]? {
        guard holds(for: values) else { return nil }
        if removesAll {
            let before = values
            values = writes.compactMapValues { $0 }
            return before.changes(to: values)
        }
        var before: [String: PropertyListValue] = [:]
        forEachWrite { key, new in before[key] = values.updateValue(forKeyOrRemoving: key, new) }
        return before.changes(to: writes.compactMapValues { $0 })
    }

    /// The keys whose values ``expected`` names one by one.
    var expectedKeys: [String] {
        if case .values(let values) = expected { Array(values.keys) } else { [] }
    }

    /// Whether applying the batch needs every stored value, not only those of its keys.
    var involvesAllValues: Bool {
        if removesAll { return true }
        if case .snapshot = expected { return true }
        return false
    }

    /// Whether the batch changes nothing whatever the store holds.
    public var isEmpty: Bool {
        switch storage {
        case .one: false
        case .many(let writes): !removesAll && writes.isEmpty
        }
    }
}

extension [String: PropertyListValue] {
    /// Stores `value` for `key`, or removes the key for `nil`; returns the value it held before.
    fileprivate mutating func updateValue(forKeyOrRemoving key: String, _ value: PropertyListValue?)
        -> PropertyListValue?
    {
        if let value { updateValue(value, forKey: key) } else { removeValue(forKey: key) }
    }
}

extension DefaultsBatch {
    /// Calls `body` with each write: a key and its value, `nil` to remove the key.
    func forEachWrite<Failure>(_ body: (String, PropertyListValue?) throws(Failure) -> Void) throws(Failure) {
        switch storage {
        case .one(let key, let value):
            try body(key, value)
        case .many(let writes):
            for (key, value) in writes { try body(key, value) }
        }
    }

    /// The batch with each key renamed by `rename` (a store's own names for keys), its expectations of values
    /// too.
    func renamingKeys(_ rename: (String) -> String) -> DefaultsBatch {
        var renamed = self
        switch storage {
        case .one(let key, let value): renamed.storage = .one(rename(key), value)
        case .many(let writes):
            renamed.storage = .many(Dictionary(writes.map { (rename($0.key), $0.value) }, uniquingKeysWith: { $1 }))
        }
        if case .values(let values) = expected {
            renamed.expected = .values(Dictionary(values.map { (rename($0.key), $0.value) }, uniquingKeysWith: { $1 }))
        }
        return renamed
    }
}
