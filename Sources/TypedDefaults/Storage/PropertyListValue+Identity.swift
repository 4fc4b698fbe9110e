import Foundation

extension PropertyListValue {
    /// Whether two values are the very same stored value: like `==`, except that a NaN is the same as a NaN
    /// with the same bits, so that a read-modify-write of a stored NaN can tell that nothing else changed it.
    func isIdentical(to other: PropertyListValue) -> Bool {
        switch (self, other) {
        case (.double(let lhs), .double(let rhs)): lhs.bitPattern == rhs.bitPattern || lhs == rhs
        case (.date(let lhs), .date(let rhs)):
            lhs.timeIntervalSinceReferenceDate.bitPattern == rhs.timeIntervalSinceReferenceDate.bitPattern
                || lhs == rhs
        case (.array(let lhs), .array(let rhs)):
            lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { $0.isIdentical(to: $1) }
        case (.dictionary(let lhs), .dictionary(let rhs)): lhs.isIdentical(to: rhs)
        default: self == other
        }
    }
}

extension [String: PropertyListValue] {
    /// Whether both hold the same keys with identical values (see ``PropertyListValue/isIdentical(to:)``).
    func isIdentical(to other: [String: PropertyListValue]) -> Bool {
        count == other.count && allSatisfy { key, value in other[key].map(value.isIdentical(to:)) ?? false }
    }
}

extension PropertyListValue? {
    /// Whether both are absent, or hold identical values.
    func isIdentical(to other: PropertyListValue?) -> Bool {
        switch (self, other) {
        case (nil, nil): true
        case (let lhs?, let rhs?): lhs.isIdentical(to: rhs)
        default: false
        }
    }
}
