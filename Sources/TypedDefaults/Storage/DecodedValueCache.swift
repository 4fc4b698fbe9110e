/// Decoded values of a suite's keys, kept while their stored form is unchanged.
///
/// Decoding JSON or parsing a date on every read would cost microseconds; a hit costs a dictionary lookup
/// and a comparison of the stored form with the one the value was decoded from, which is immediate when
/// they are the very same storage (as they are until the key is written).
@usableFromInline
final class DecodedValueCache: Sendable {
    private struct Entry: Sendable {
        let source: PropertyListValue
        let value: DecodedValue
    }

    private let entries = Locked<[String: Entry]>([:])

    /// The value decoded from exactly `source` for `key`, if it was kept as a `Value`.
    @usableFromInline
    func value<Value>(forKey key: String, decodedFrom source: PropertyListValue, as type: Value.Type) -> Value? {
        guard let entry = entries.withLock({ $0[key] }), entry.source == source else { return nil }
        return entry.value.value as? Value
    }

    @usableFromInline
    func keep<Value>(_ value: Value, forKey key: String, decodedFrom source: PropertyListValue) {
        let entry = Entry(source: source, value: DecodedValue(value))
        entries.withLock { $0[key] = entry }
    }
}

/// A decoded value held by the cache.
private final class DecodedValue: @unchecked Sendable {
    // Immutable, and only of value types (bridges of reference types do not ask for caching), so every
    // reader gets its own copy; the cache's lock guards the entry that holds it.
    let value: Any

    init(_ value: Any) { self.value = value }
}
