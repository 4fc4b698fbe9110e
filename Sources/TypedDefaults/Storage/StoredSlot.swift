import Foundation

/// A suite's value with what a costly bridge last decoded from it.
///
/// Decoding JSON or parsing a date on every read would cost microseconds. The decoded value sits beside the
/// stored one, so a read finds both with one lookup, and it is dropped whenever the stored value changes.
struct StoredSlot: Sendable {
    var value: PropertyListValue
    var decoded: AnyDecodedValue?

    /// Slots for `values`, keeping decoded values whose stored value is unchanged (an immediate comparison
    /// when the two are the very same storage, as after a write of other keys).
    static func slots(_ values: [String: PropertyListValue], reusing old: [String: StoredSlot]) -> [String: StoredSlot]
    {
        var slots: [String: StoredSlot] = [:]
        slots.reserveCapacity(values.count)
        for (key, value) in values {
            let kept = old[key].flatMap { $0.value == value ? $0.decoded : nil }
            slots[key] = StoredSlot(value: value, decoded: kept)
        }
        return slots
    }
}

/// A decoded value of some type, kept beside its stored form.
@usableFromInline
class AnyDecodedValue: @unchecked Sendable {
    // Immutable, and only of values that hold no object (`ValueSemantics`), so every reader gets its own
    // copy; the suite's state lock guards the slot that holds it.
    @usableFromInline let type: ObjectIdentifier

    @usableFromInline
    init(type: ObjectIdentifier) { self.type = type }
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
