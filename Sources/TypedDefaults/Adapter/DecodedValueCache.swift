import Foundation

/// What costly bridges decoded, kept beside the stored value it came from: the one decoded-value cache.
///
/// Decoding JSON or parsing a date on every read would cost microseconds. An adapter (and every copy of it,
/// and every `@Default` property made from it) keeps the values it decoded here, each with the stored value
/// it was decoded from. A read uses a kept value only while the store still holds that very stored value
/// (compared bit for bit, at once when it is the same storage), so it is never stale, whatever changed the
/// store. A `@Default` property with `.cached` trusts the kept value without asking the store, until a
/// write through the adapter or, with `.observed`, any change of the key drops it.
@usableFromInline
final class DecodedValueCache: Sendable {
    @usableFromInline
    struct Entry: Sendable {
        /// The stored value the value was decoded from; `nil` when nothing was stored (the key's default).
        @usableFromInline var source: PropertyListValue?
        @usableFromInline var decoded: AnyDecodedValue
    }

    @usableFromInline
    struct State: Sendable {
        @usableFromInline var entries: [String: Entry] = [:]
        /// Counts dropped values, so that a value decoded before a drop is not kept after it.
        @usableFromInline var generation: UInt64 = 0
    }

    @usableFromInline let state = Locked(State())

    @usableFromInline
    init() {}

    /// The value kept for `key` if it was decoded from `source` (the value the store holds now).
    @usableFromInline
    func decoded(forKey key: String, from source: PropertyListValue) -> AnyDecodedValue? {
        state.withLock { state in
            guard let entry = state.entries[key], let kept = entry.source else { return nil }
            // The same storage compares at once; equal contents in new storage (the file was read again) are
            // compared once, and the entry then points at the new storage.
            guard kept.isIdentical(to: source) else { return nil }
            state.entries[key]?.source = source
            return entry.decoded
        }
    }

    /// The value kept for `key`, whatever the store holds now, and the generation to keep a new one at.
    @usableFromInline
    func trusted(forKey key: String) -> (decoded: AnyDecodedValue?, generation: UInt64) {
        state.withLock { ($0.entries[key]?.decoded, $0.generation) }
    }

    @usableFromInline
    var generation: UInt64 { state.withLock { $0.generation } }

    /// Keeps `decoded`, decoded from `source`, unless a value was dropped since `generation`.
    @usableFromInline
    func keep(
        _ decoded: AnyDecodedValue,
        forKey key: String,
        from source: PropertyListValue?,
        ifStill generation: UInt64
    ) {
        state.withLock { state in
            guard state.generation == generation else { return }
            state.entries[key] = Entry(source: source, decoded: decoded)
        }
    }

    /// Drops what is kept for `key` (for every key, with `nil`).
    func forget(_ key: String?) {
        state.withLock { state in
            state.generation &+= 1
            if let key { state.entries[key] = nil } else { state.entries.removeAll() }
        }
    }
}

/// A decoded value of some type, kept beside its stored form.
@usableFromInline
class AnyDecodedValue: @unchecked Sendable {
    // Immutable, and only of values that hold no object (`ValueSemantics`), so every reader gets its own
    // copy; the cache's lock guards the entry that holds it.
    @usableFromInline let type: ObjectIdentifier

    @usableFromInline
    init(type: ObjectIdentifier) { self.type = type }

    /// The value, if it is a `Value`.
    @inlinable
    func value<Value>(as: Value.Type) -> Value? {
        guard type == ObjectIdentifier(Value.self) else { return nil }
        return unsafeDowncast(self, to: DecodedValue<Value>.self).value
    }
}

@usableFromInline
final class DecodedValue<Value>: AnyDecodedValue, @unchecked Sendable {
    // Immutable after creation; see `AnyDecodedValue`.
    @usableFromInline let value: Value

    @usableFromInline
    init(_ value: Value) {
        self.value = value
        super.init(type: ObjectIdentifier(Value.self))
    }
}

/// Whether a decoded value may be kept and handed to every later reader.
///
/// A value that holds an object (a `Codable` class, an array of them, a struct with a class inside) would be
/// shared: one reader's mutation would show up in the next read, and race across threads. Such values are
/// decoded afresh on each read instead. Foundation's value types that are built on objects (`URL`, `Data`)
/// copy on write and count as values.
@usableFromInline
enum ValueSemantics {
    @usableFromInline
    static func holdsNoReferences(_ value: Any) -> Bool {
        holdsNoReferences(value, depth: 0)
    }

    private static func holdsNoReferences(_ value: Any, depth: Int) -> Bool {
        if value is String || value is URL || value is Data || value is Date || value is UUID || value is Decimal {
            return true
        }
        let mirror = Mirror(reflecting: value)
        // Too deep to be sure, then not kept: decoding again is only slower.
        guard mirror.displayStyle != .class, depth < 32 else { return false }
        return mirror.children.allSatisfy { holdsNoReferences($0.value, depth: depth + 1) }
    }
}
