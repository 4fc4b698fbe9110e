import Foundation

extension PropertyListValue {
    /// Whether two values are the very same stored value, bit for bit: unlike `==`, a NaN is the same as a
    /// NaN with the same bits, `-0.0` differs from `0.0`, and strings compare by their UTF-8 bytes (Swift's
    /// `==` takes "é" and "e" + U+0301 to be equal, though a file holds them differently).
    ///
    /// ```swift
    /// PropertyListValue.double(-0.0).isIdentical(to: .double(0.0))   // false, though they are ==
    /// ```
    public func isIdentical(to other: PropertyListValue) -> Bool {
        if haveSameRepresentation(self, other) { return true }
        return switch (self, other) {
        case (.string(let lhs), .string(let rhs)): lhs.hasIdenticalBytes(to: rhs)
        case (.double(let lhs), .double(let rhs)): lhs.bitPattern == rhs.bitPattern
        case (.date(let lhs), .date(let rhs)):
            lhs.timeIntervalSinceReferenceDate.bitPattern == rhs.timeIntervalSinceReferenceDate.bitPattern
        case (.array(let lhs), .array(let rhs)):
            lhs.count == rhs.count
                && (lhs.sharesStorage(with: rhs) || zip(lhs, rhs).allSatisfy { $0.isIdentical(to: $1) })
        case (.dictionary(let lhs), .dictionary(let rhs)): lhs.isIdentical(to: rhs)
        default: self == other
        }
    }
}

extension [String: PropertyListValue] {
    /// Whether both hold the same keys with identical values (see ``PropertyListValue/isIdentical(to:)``).
    public func isIdentical(to other: [String: PropertyListValue]) -> Bool {
        count == other.count && allSatisfy { key, value in other[key].map(value.isIdentical(to:)) ?? false }
    }
}

extension PropertyListValue? {
    /// Whether both are absent, or hold identical values.
    public func isIdentical(to other: PropertyListValue?) -> Bool {
        switch (self, other) {
        case (nil, nil): true
        case (let lhs?, let rhs?): lhs.isIdentical(to: rhs)
        default: false
        }
    }
}

/// Whether `lhs` and `rhs` are the very same bits: the same case with the same number, or with the same storage
/// (a string, data, array or dictionary shared by both, as a kept copy is), so identical at once.
///
/// Different bits prove nothing (equal contents in different storage, or a short payload beside unused bytes),
/// so this only answers yes quickly. Compared as bytes of whatever size the type has on the platform.
private func haveSameRepresentation<Value>(_ lhs: Value, _ rhs: Value) -> Bool {
    withUnsafeBytes(of: lhs) { lhs in
        withUnsafeBytes(of: rhs) { rhs in memcmp(lhs.baseAddress!, rhs.baseAddress!, lhs.count) == 0 }
    }
}

extension String {
    /// Whether both hold the same UTF-8 bytes; immediate when they share storage, as a kept copy does.
    fileprivate func hasIdenticalBytes(to other: String) -> Bool {
        // The same storage (or the same small string) is the same bits, as Swift's own `==` checks first.
        if haveSameRepresentation(self, other) { return true }
        var lhs = self
        var rhs = other
        return lhs.withUTF8 { lhs in
            rhs.withUTF8 { rhs in
                lhs.count == rhs.count
                    && (lhs.baseAddress == rhs.baseAddress || lhs.isEmpty
                        || memcmp(lhs.baseAddress!, rhs.baseAddress!, lhs.count) == 0)
            }
        }
    }
}

extension Array {
    /// Whether both are the very same storage, so equal without looking at the elements.
    fileprivate func sharesStorage(with other: Array) -> Bool {
        withUnsafeBufferPointer { lhs in other.withUnsafeBufferPointer { rhs in lhs.baseAddress == rhs.baseAddress } }
    }
}
