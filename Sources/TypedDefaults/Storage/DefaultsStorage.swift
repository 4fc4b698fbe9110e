/// Where an adapter's values live: the one layer that reads and writes them.
///
/// Values cross this boundary as ``PropertyListValue`` only, already checked by
/// ``PropertyListValue/checkStorable()``, so nothing Foundation cannot store reaches it.
protocol DefaultsStorage: Sendable {
    /// The suite's name for diagnostics and errors: its name, `"standard"`, or `"in-memory"`.
    var suiteName: String { get }

    /// The value stored for `key`, or `nil` if none is stored or it is not a property-list value.
    func value(forKey key: String) -> PropertyListValue?

    /// Whether the suite itself stores a value for `key`.
    func hasValue(forKey key: String) -> Bool

    /// Stores `value` for `key` (removes the key for `nil`); on return the write is durable.
    func setValue(_ value: PropertyListValue?, forKey key: String) throws(DefaultsError)

    /// Removes every value the suite stores.
    func removeAll() throws(DefaultsError)
}
