import Foundation

/// Equality that the type-matrix tests use to say "came back exactly": the same bits for floating-point
/// numbers (so `-0.0` is not `0.0` and NaN equals NaN) and for dates, and `==` for everything else.
public protocol ExactlyEqual {
    /// Whether `other` is exactly this value.
    func isExactly(_ other: Self) -> Bool
}

extension ExactlyEqual where Self: Equatable {
    /// `==`.
    public func isExactly(_ other: Self) -> Bool { self == other }
}

extension Double: ExactlyEqual {
    /// The same bits, or both NaN.
    public func isExactly(_ other: Double) -> Bool { bitPattern == other.bitPattern || (isNaN && other.isNaN) }
}

extension Float: ExactlyEqual {
    /// The same bits, or both NaN.
    public func isExactly(_ other: Float) -> Bool { bitPattern == other.bitPattern || (isNaN && other.isNaN) }
}

extension CGFloat: ExactlyEqual {
    /// The same bits, or both NaN.
    public func isExactly(_ other: CGFloat) -> Bool { Double(self).isExactly(Double(other)) }
}

extension Date: ExactlyEqual {
    /// The same time interval, to the bit.
    public func isExactly(_ other: Date) -> Bool {
        timeIntervalSinceReferenceDate.isExactly(other.timeIntervalSinceReferenceDate)
    }
}

extension Optional: ExactlyEqual where Wrapped: ExactlyEqual {
    /// Both `nil`, or both values and exactly equal.
    public func isExactly(_ other: Wrapped?) -> Bool {
        switch (self, other) {
        case (nil, nil): true
        case (let lhs?, let rhs?): lhs.isExactly(rhs)
        default: false
        }
    }
}

extension Array: ExactlyEqual where Element: ExactlyEqual {
    /// The same count, and every element exactly equal.
    public func isExactly(_ other: [Element]) -> Bool {
        count == other.count && zip(self, other).allSatisfy { $0.isExactly($1) }
    }
}

extension Dictionary: ExactlyEqual where Value: ExactlyEqual {
    /// The same keys, and every value exactly equal.
    public func isExactly(_ other: [Key: Value]) -> Bool {
        count == other.count && allSatisfy { key, value in other[key].map { value.isExactly($0) } ?? false }
    }
}

extension Set: ExactlyEqual {}
extension String: ExactlyEqual {}
extension Bool: ExactlyEqual {}
extension Int: ExactlyEqual {}
extension Int8: ExactlyEqual {}
extension Int16: ExactlyEqual {}
extension Int32: ExactlyEqual {}
extension Int64: ExactlyEqual {}
extension UInt: ExactlyEqual {}
extension UInt8: ExactlyEqual {}
extension UInt16: ExactlyEqual {}
extension UInt32: ExactlyEqual {}
extension UInt64: ExactlyEqual {}
extension Data: ExactlyEqual {}
extension URL: ExactlyEqual {}
extension UUID: ExactlyEqual {}
extension Decimal: ExactlyEqual {}
