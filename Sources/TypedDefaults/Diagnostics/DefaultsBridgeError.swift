/// The error a bridge throws for a value it cannot store or a stored form it cannot read.
///
/// ## Usage
/// ```swift
/// func serialize(_ value: Temperature) throws -> PropertyListValue? {
///     guard value.kelvin >= 0 else { throw DefaultsBridgeError("a temperature below absolute zero") }
///     return .double(value.kelvin)
/// }
/// ```
public struct DefaultsBridgeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in words a user can act on.
    public var reason: String

    /// Creates an error with the reason a user will read.
    public init(_ reason: String) {
        self.reason = reason
    }

    /// The reason.
    public var description: String { reason }
}
