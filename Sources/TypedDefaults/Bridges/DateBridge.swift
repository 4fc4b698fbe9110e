import Foundation

/// Stores a `Date` as an ISO 8601 string in UTC with as many fractional digits as it needs to come back
/// exactly, such as `"2026-11-21T08:26:05.123456Z"`.
///
/// Why not a `<date>`: Foundation's XML plist on Linux keeps whole seconds only, so a `Date` stored natively
/// comes back up to a second earlier in the next process. The string is exact, readable, and sorts in
/// time order. Reading also accepts native `<date>` values (what Foundation and the other defaults libraries
/// write), ISO 8601 strings with a `±hh:mm` offset, and dates as macOS prints them
/// (`2026-11-21 08:26:05 +0000`).
///
/// ## Usage
/// ```swift
/// let lastSync = Key<Date?>("lastSync")
/// Defaults[key: lastSync] = .now
/// ```
public struct DateBridge: DefaultsBridge {
    /// Creates the bridge.
    @inlinable
    public init() {}

    /// Decoding parses, so reads keep the decoded value.
    @inlinable
    public var decodesAtACost: Bool { true }

    /// Returns the date as a precise ISO 8601 string; throws for a date whose time interval is not finite.
    public func serialize(_ value: Date) throws -> PropertyListValue? {
        guard let text = PreciseTimestamp.string(from: value) else {
            throw DefaultsBridgeError(
                "a date \(value.timeIntervalSinceReferenceDate) s from 2001 is outside the years a timestamp can hold"
            )
        }
        return .string(text)
    }

    /// Returns the date of a `<date>` or of an ISO 8601 string, or `nil`.
    public func deserialize(_ stored: PropertyListValue) -> Date? {
        switch stored {
        case .date(let value): value
        case .string(let text): PropertyListValue.date(fromText: text)
        default: nil
        }
    }
}

extension Date: DefaultsSerializable {
    /// Stores dates as precise ISO 8601 strings.
    @inlinable
    public static var bridge: DateBridge { DateBridge() }
}
