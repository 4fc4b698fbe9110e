/// Decoded values of a suite's keys, kept while their stored form is unchanged.
///
/// Decoding JSON or parsing a date on every read would cost microseconds; a hit costs a dictionary lookup
/// and a comparison of the stored form with the one the value was decoded from, which is immediate when
/// they are the very same storage (as they are until the key is written).
@usableFromInline
final class DecodedValueCache: Sendable {
    @usableFromInline
    struct Entry: Sendable {
        @usableFromInline let source: PropertyListValue
        @usableFromInline let type: ObjectIdentifier
        @usableFromInline let value: AnyDecodedValue

        @usableFromInline
        init(source: PropertyListValue, type: ObjectIdentifier, value: AnyDecodedValue) {
            self.source = source
            self.type = type
            self.value = value
        }
    }

    @usableFromInline let entries = Locked<[String: Entry]>([:])

    @usableFromInline
    init() {}

    /// The value decoded from exactly `source` for `key`, if it was kept as a `Value`.
    @inlinable
    func value<Value>(forKey key: String, decodedFrom source: PropertyListValue, as type: Value.Type) -> Value? {
        let type = ObjectIdentifier(Value.self)
        let hit: AnyDecodedValue? = entries.withLock { entries in
            guard let entry = entries[key], entry.type == type, entry.source == source else { return nil }
            return entry.value
        }
        // The type was checked just above.
        return hit.map { unsafeDowncast($0, to: DecodedValue<Value>.self).value }
    }

    @inlinable
    func keep<Value>(_ value: Value, forKey key: String, decodedFrom source: PropertyListValue) {
        let entry = Entry(source: source, type: ObjectIdentifier(Value.self), value: DecodedValue(value))
        entries.withLock { $0[key] = entry }
    }
}

/// A decoded value of some type, held by the cache.
@usableFromInline
class AnyDecodedValue: @unchecked Sendable {
    // Immutable, and only of value types (bridges of reference types do not ask for caching), so every
    // reader gets its own copy; the cache's lock guards the entry that holds it.
    @usableFromInline
    init() {}
}

@usableFromInline
final class DecodedValue<Value>: AnyDecodedValue, @unchecked Sendable {
    // Immutable after creation; see `AnyDecodedValue`.
    @usableFromInline let value: Value

    @usableFromInline
    init(_ value: Value) {
        self.value = value
        super.init()
    }
}
