/// Stores a `Range` as a two-element `<array>` of its bounds' stored forms, lower bound first.
///
/// It is the form sindresorhus/Defaults writes, so its ranges read as they are. A stored array whose lower
/// bound is above its upper bound, with another count, or with an element that is not a `Bound` reads as a
/// mismatch (the key's default and a diagnostic): `Range` itself stops the process on such bounds.
///
/// ## Usage
/// ```swift
/// let visibleHours = Key<Range<Int>>("visibleHours", default: 8..<18)
/// Defaults[key: visibleHours] = 9..<17   // stored as <array><integer>9</integer><integer>17</integer></array>
/// ```
public struct RangeBridge<Bound: Comparable & DefaultsSerializable>: DefaultsBridge {
    /// Creates the bridge.
    @inlinable
    public init() {}

    /// As costly as the bounds' decoding.
    @inlinable
    public var decodesAtACost: Bool { Bound.bridge.decodesAtACost }

    /// Returns `.array` of the lower and the upper bound's stored forms.
    @inlinable
    public func serialize(_ value: Range<Bound>) throws -> PropertyListValue? {
        try RangeBounds<Bound>.serialize(value.lowerBound, value.upperBound)
    }

    /// Returns the range whose bounds are stored; throws saying why stored bounds make no range.
    @inlinable
    public func deserialize(_ stored: PropertyListValue) throws -> Range<Bound>? {
        guard let (lower, upper) = try RangeBounds<Bound>.deserialize(stored) else { return nil }
        return Range(uncheckedBounds: (lower, upper))
    }
}

/// Stores a `ClosedRange` as a two-element `<array>` of its bounds' stored forms, lower bound first.
///
/// The same form as ``RangeBridge`` (and as sindresorhus/Defaults writes), with the same checks: bounds in the
/// wrong order, another count or an element that is not a `Bound` read as a mismatch, never as a crash.
///
/// ## Usage
/// ```swift
/// let volumeLimits = Key<ClosedRange<Double>>("volumeLimits", default: 0...1)
/// Defaults[key: volumeLimits] = 0.2...0.8
/// ```
public struct ClosedRangeBridge<Bound: Comparable & DefaultsSerializable>: DefaultsBridge {
    /// Creates the bridge.
    @inlinable
    public init() {}

    /// As costly as the bounds' decoding.
    @inlinable
    public var decodesAtACost: Bool { Bound.bridge.decodesAtACost }

    /// Returns `.array` of the lower and the upper bound's stored forms.
    @inlinable
    public func serialize(_ value: ClosedRange<Bound>) throws -> PropertyListValue? {
        try RangeBounds<Bound>.serialize(value.lowerBound, value.upperBound)
    }

    /// Returns the range whose bounds are stored; throws saying why stored bounds make no range.
    @inlinable
    public func deserialize(_ stored: PropertyListValue) throws -> ClosedRange<Bound>? {
        guard let (lower, upper) = try RangeBounds<Bound>.deserialize(stored) else { return nil }
        return ClosedRange(uncheckedBounds: (lower, upper))
    }
}

/// The stored form both range bridges share.
@usableFromInline
enum RangeBounds<Bound: Comparable & DefaultsSerializable> {
    @inlinable
    static func serialize(_ lower: Bound, _ upper: Bound) throws -> PropertyListValue {
        guard let lowerForm = try Bound.storedForm(of: lower), let upperForm = try Bound.storedForm(of: upper)
        else {
            throw DefaultsBridgeError("a range bound has no stored form, and a property-list array cannot hold nil")
        }
        return .array([lowerForm, upperForm])
    }

    /// The bounds of a stored range, checked to be in order; `nil` for a stored value that is not an array.
    @inlinable
    static func deserialize(_ stored: PropertyListValue) throws -> (Bound, Bound)? {
        guard case .array(let items) = stored else { return nil }
        guard items.count == 2 else {
            throw DefaultsBridgeError("a range is stored as 2 bounds, and the array has \(items.count) elements")
        }
        guard let lower = try Bound.value(fromStoredForm: items[0]) else {
            throw DefaultsBridgeError("the lower bound is \(items[0].summary), expected \(Bound.self)")
        }
        guard let upper = try Bound.value(fromStoredForm: items[1]) else {
            throw DefaultsBridgeError("the upper bound is \(items[1].summary), expected \(Bound.self)")
        }
        // Also false for a NaN bound, which no range can hold.
        guard lower <= upper else {
            throw DefaultsBridgeError(
                "the lower bound \(String(reflecting: lower)) is not at most the upper bound \(String(reflecting: upper))"
            )
        }
        return (lower, upper)
    }
}

extension Range: DefaultsSerializable where Bound: DefaultsSerializable {
    /// Stores ranges as a two-element `<array>`.
    @inlinable
    public static var bridge: RangeBridge<Bound> { RangeBridge() }
}

extension ClosedRange: DefaultsSerializable where Bound: DefaultsSerializable {
    /// Stores closed ranges as a two-element `<array>`.
    @inlinable
    public static var bridge: ClosedRangeBridge<Bound> { ClosedRangeBridge() }
}
