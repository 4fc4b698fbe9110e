import Foundation

// The one place where TypedDefaults' values become Foundation objects and back.

extension PropertyListValue {
    /// The value as a Foundation property-list object (`String`, `NSNumber`, `UInt64`, `Double`, `Bool`, `Data`,
    /// `Date`, arrays and dictionaries of them), for `PropertyListSerialization` or `UserDefaults`.
    ///
    /// Integers go as 64-bit `NSNumber`s: `Int` is 32 bits on watchOS, where converting to it would trap.
    ///
    /// Only property-list types come out, so none of Foundation's `fatalError`s for unsupported types can be
    /// reached.
    ///
    /// ```swift
    /// let xml = try PropertyListSerialization.data(fromPropertyList: value.foundationObject, format: .xml, options: 0)
    /// ```
    public var foundationObject: Any {
        switch self {
        case .string(let value): value
        case .bool(let value): value
        case .integer(let value): NSNumber(value: value)
        case .unsignedInteger(let value): value
        case .double(let value): value
        case .data(let value): value
        case .date(let value): value
        case .array(let items): items.map(\.foundationObject)
        case .dictionary(let entries): entries.mapValues(\.foundationObject)
        }
    }

    /// Converts what `UserDefaults` returns.
    ///
    /// Foundation on Linux hands back `Int`, `Int64`, `UInt64`, `Double`, `Bool`, `NSNumber` (from launch
    /// arguments), and collections whose elements are wrapped in `Optional<Any>`; casts look through those
    /// wrappers. Returns `nil` for anything that is not a property-list value (a `UUID` someone registered,
    /// `NSNull`, a `nil` element).
    ///
    /// ```swift
    /// let value = PropertyListValue(foundationObject: try PropertyListSerialization.propertyList(from: data, format: nil))
    /// ```
    public init?(foundationObject object: Any) {
        switch object {
        case let value as String: self = .string(value)
        // Before `Bool`: an `NSNumber` 1 casts to `true`, and property-list readers return `NSNumber`s.
        case let number as NSNumber: self = PropertyListValue(number)
        case let value as Data: self = .data(value)
        case let value as Date: self = .date(value)
        case let items as [Any]:
            var converted: [PropertyListValue] = []
            converted.reserveCapacity(items.count)
            for item in items {
                guard let value = PropertyListValue(foundationObject: item) else { return nil }
                converted.append(value)
            }
            self = .array(converted)
        case let entries as [AnyHashable: Any]:
            var converted: [String: PropertyListValue] = [:]
            converted.reserveCapacity(entries.count)
            for (key, item) in entries {
                guard let name = key.base as? String, let value = PropertyListValue(foundationObject: item) else {
                    return nil
                }
                converted[name] = value
            }
            self = .dictionary(converted)
        default:
            return nil
        }
    }

    /// Foundation's reading of a property list: the one place the library hands bytes to
    /// `PropertyListSerialization`, for what its own readers leave to it.
    ///
    /// The library has no reader of old-style text (`(a, b)`, `{ k = v; }`, `<0a1b>`, which users type and
    /// `defaults` accepts), and ``PropertyListXMLReader`` declines the XML it cannot be sure to read as
    /// Foundation does: for both, Foundation's reading is the one users expect. `nil` for what is not a property
    /// list, holds what no value can (a UID, a null), or would crash Foundation on Linux.
    static func foundationReading(of data: Data) -> PropertyListValue? {
        guard BinaryPropertyListReader.foundationCrash(on: data) == nil,
            let object = try? PropertyListSerialization.propertyList(from: data, format: nil)
        else { return nil }
        return PropertyListValue(foundationObject: object)
    }

    private init(_ number: NSNumber) {
        let type = String(cString: number.objCType)
        // "c" is how a Boolean reports itself; property lists hold no 8-bit integers.
        if type == "c" {
            self = .bool(number.boolValue)
        } else if type == "f" || type == "d" {
            self = .double(number.doubleValue)
        } else if type == "Q" || type == "L", number.uint64Value > UInt64(Int64.max) {
            self = .unsignedInteger(number.uint64Value)
        } else {
            self = .integer(number.int64Value)
        }
    }
}
