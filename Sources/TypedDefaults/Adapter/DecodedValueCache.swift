import Foundation

/// What costly bridges decoded, kept beside the stored value it came from: the one decoded-value cache.
///
/// Decoding JSON or parsing a date on every read would cost microseconds. An adapter (and every copy of it,
/// and every `@Default` property made from it) keeps the values it decoded here, each with the stored value
/// it was decoded from. A read uses a kept value only while the store still holds that very stored value
/// (compared bit for bit, at once when it is the same storage), so it is never stale, whatever changed the
/// store. A `@Default` property with `.cached` trusts the kept value without asking the store, until any
/// change of the key, however made, drops it.
@usableFromInline
final class DecodedValueCache: Sendable {
    /// What is kept for one key: a `@Default` property holds its key's slot, so its reads need no lookup.
    @usableFromInline
    // @unchecked: guarded by `DecodedValueCache.state`'s lock (see below).
    final class Slot: @unchecked Sendable {
        // Read and written only while holding the cache's `state` lock, which also rules out overlapping
        // accesses: the run-time exclusivity check would only cost each read.
        /// The stored value the value was decoded from.
        @exclusivity(unchecked) @usableFromInline var source: PropertyListValue?
        @exclusivity(unchecked) @usableFromInline var decoded: AnyDecodedValue?

        init() {}
    }

    @usableFromInline
    struct State: Sendable {
        /// Slots stay once made (dropping a value empties its slot), so the properties holding them stay
        /// connected; there is one per key name read through a costly bridge or a cached property.
        @usableFromInline var slots: [String: Slot] = [:] {
            didSet { slotsSerial &+= 1 }
        }
        /// Counts the changes of `slots`, so that an answer in `recent` is trusted only while it is current.
        @usableFromInline var slotsSerial: UInt64 = 0
        @usableFromInline var recent = RecentLookups<Slot?>()
        /// Counts dropped values, so that a value decoded before a drop is not kept after it.
        @usableFromInline var generation: UInt64 = 0

        /// The slot of `key`, if there is one.
        @usableFromInline
        mutating func slot(named key: String) -> Slot? {
            if let slot = recent.answer(for: key, serial: slotsSerial) { return slot }
            // Found or not, the answer is kept: most writes are of keys that have no slot.
            let slot = slots[key]
            recent.remember(slot, for: key, serial: slotsSerial)
            return slot
        }
    }

    @usableFromInline let state = Locked(State())

    @usableFromInline
    init() {}

    /// The value kept for `key` if it is a `Value` decoded from `source` (the value the store holds now).
    @inlinable
    func value<Value>(forKey key: String, from source: PropertyListValue, as type: Value.Type) -> Value? {
        state.withLock { state in
            guard let slot = state.slot(named: key), slot.holds(source) else { return nil }
            return slot.decoded?.value(as: Value.self)
        }
    }

    /// The value `slot` keeps, if it is a `Value`, and the count of dropped values, for a value fetched next to
    /// be kept only if none is dropped meanwhile.
    @inlinable
    func kept<Value>(in slot: Slot, as type: Value.Type) -> (value: Value?, generation: UInt64) {
        // Copied out under the lock, which needs no reference to the kept value.
        state.withLock { (slot.decoded?.value(as: Value.self), $0.generation) }
    }

    /// The slot of `key`, made if there is none yet.
    func slot(forKey key: String) -> Slot {
        state.withLock { state in
            if let slot = state.slot(named: key) { return slot }
            let slot = Slot()
            state.slots[key] = slot
            return slot
        }
    }

    @usableFromInline
    var generation: UInt64 { state.withLock { $0.generation } }

    /// Keeps `decoded`, decoded from `source`, for `key` (in `slot`, if the caller holds it), unless a value
    /// was dropped since `generation`.
    @usableFromInline
    func keep(
        _ decoded: AnyDecodedValue,
        forKey key: String,
        in slot: Slot? = nil,
        from source: PropertyListValue,
        ifStill generation: UInt64
    ) {
        // What the slot held before is freed after the lock, as in ``forget(_:)``.
        let replaced = state.withLock { state -> Slot.Contents? in
            guard state.generation == generation else { return nil }
            let target: Slot
            if let slot {
                target = slot
            } else if let existing = state.slot(named: key) {
                target = existing
            } else {
                target = Slot()
                state.slots[key] = target
            }
            defer { (target.source, target.decoded) = (source, decoded) }
            return target.empty()
        }
        _ = replaced
    }

    /// Drops what is kept for `key` (for every key, with `nil`).
    ///
    /// What was kept is freed after the lock, which every read of a kept value takes: freeing a large decoded
    /// value takes long enough to be worth keeping a read from waiting for it.
    func forget(_ key: String?) {
        if let key {
            let dropped = state.withLock { state in
                state.generation &+= 1
                return state.slots.isEmpty ? nil : state.slot(named: key)?.empty()
            }
            _ = dropped
        } else {
            let dropped = state.withLock { state in
                state.generation &+= 1
                return state.slots.values.map { $0.empty() }
            }
            _ = dropped
        }
    }
}

extension DecodedValueCache.Slot {
    /// Whether the value kept was decoded from `source`; call holding the cache's lock.
    ///
    /// The same storage compares at once; equal contents in new storage (the file was read again) compare
    /// byte for byte.
    @usableFromInline
    func holds(_ source: PropertyListValue) -> Bool {
        self.source?.isIdentical(to: source) ?? false
    }

    /// What a slot keeps: a stored value and the value decoded from it.
    typealias Contents = (source: PropertyListValue?, decoded: AnyDecodedValue?)

    /// Empties the slot; returns what it kept, for the caller to free after the cache's lock.
    fileprivate func empty() -> Contents {
        defer { (source, decoded) = (nil, nil) }
        return (source, decoded)
    }
}

/// A decoded value of some type, kept beside its stored form.
@usableFromInline
// @unchecked: immutable; the entry holding it is guarded by `DecodedValueCache.state`'s lock.
class AnyDecodedValue: @unchecked Sendable {
    // Immutable, and only of values that hold no object (`ValueSemantics`), so every reader gets its own
    // copy; the cache's lock guards the entry that holds it.
    @usableFromInline let type: ObjectIdentifier

    @usableFromInline
    init(type: ObjectIdentifier) { self.type = type }

    /// The value, if it is a `Value`.
    @inlinable
    final func value<Value>(as: Value.Type) -> Value? {
        guard type == ObjectIdentifier(Value.self) else { return nil }
        return unsafeDowncast(self, to: DecodedValue<Value>.self).value
    }
}

@usableFromInline
// @unchecked: immutable, as `AnyDecodedValue`.
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
