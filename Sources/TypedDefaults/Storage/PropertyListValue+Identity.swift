import Foundation

extension PropertyListValue {
    /// Whether two values are the very same stored value, bit for bit: unlike `==`, a NaN is the same as a
    /// NaN with the same bits, `-0.0` differs from `0.0`, and strings compare by their UTF-8 bytes (Swift's
    /// `==` takes "é" and "e" + U+0301 to be equal, though a file holds them differently).
    func isIdentical(to other: PropertyListValue) -> Bool {
        switch (self, other) {
        case (.string(let lhs), .string(let rhs)): lhs.utf8.elementsEqual(rhs.utf8)
        case (.double(let lhs), .double(let rhs)): lhs.bitPattern == rhs.bitPattern
        case (.date(let lhs), .date(let rhs)):
            lhs.timeIntervalSinceReferenceDate.bitPattern == rhs.timeIntervalSinceReferenceDate.bitPattern
        case (.array(let lhs), .array(let rhs)):
            lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { $0.isIdentical(to: $1) }
        case (.dictionary(let lhs), .dictionary(let rhs)): lhs.isIdentical(to: rhs)
        default: self == other
        }
    }
}

extension [String: PropertyListValue] {
    /// Every key whose value differs in `other` (added, removed or changed, bit for bit), with both values:
    /// the one change-diff that announcements and write bookkeeping share.
    func changes(to other: [String: PropertyListValue]) -> [StoredChange] {
        var changes: [StoredChange] = []
        for (key, new) in other where !self[key].isIdentical(to: new) {
            changes.append(StoredChange(key: key, oldValue: self[key], newValue: new))
        }
        for (key, old) in self where other[key] == nil {
            changes.append(StoredChange(key: key, oldValue: old, newValue: nil))
        }
        return changes
    }

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
