/// A change of one key's value, as an observer receives it.
///
/// ## Usage
/// ```swift
/// let token = Defaults.observe(\.theme) { change in
///     print("theme: \(change.oldValue) → \(change.newValue)")
/// }
/// ```
public struct DefaultsChange<Value: Sendable>: Sendable {
    /// The name of the key that changed.
    public let key: String
    /// The value before the change (the key's default if nothing was stored).
    public let oldValue: Value
    /// The value after the change (the key's default if the value was removed).
    public let newValue: Value
}

/// How an observation starts.
///
/// ## Usage
/// ```swift
/// Defaults.observe(\.volume, options: [.initial]) { change in apply(change.newValue) }
/// ```
public struct ObservationOptions: OptionSet, Sendable, Hashable {
    /// The options' bits.
    public let rawValue: Int

    /// Creates options from their bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Deliver the current value once, right away, as a change whose old and new values are both the current
    /// value.
    public static let initial = ObservationOptions(rawValue: 1)
}
