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
    /// Whether this is the current value delivered when the observation started (``ObservationOptions/initial``)
    /// rather than a change; its old and new values are then the same.
    public let isInitial: Bool

    init(key: String, oldValue: Value, newValue: Value, isInitial: Bool = false) {
        self.key = key
        self.oldValue = oldValue
        self.newValue = newValue
        self.isInitial = isInitial
    }
}

/// How an observation starts, and where its handler runs.
///
/// ## Usage
/// ```swift
/// Defaults.observe(\.volume, options: [.initial]) { change in apply(change.newValue) }
/// Defaults.observe(.quality, options: [.initial, .synchronous]) { change in render(change.newValue) }
/// ```
public struct ObservationOptions: OptionSet, Sendable, Hashable {
    /// The options' bits.
    public let rawValue: Int

    /// Creates options from their bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Deliver the current value once, right away, as a change whose old and new values are both the current
    /// value and whose ``DefaultsChange/isInitial`` is `true`.
    public static let initial = ObservationOptions(rawValue: 1 << 0)

    /// Call the handler on the thread that writes, before the write returns, rather than on the observation's
    /// queue.
    ///
    /// Applies to writes through any adapter on the suite in this process (`set`, subscripts, `@Default`,
    /// `modify`, `reset`, `removeAll`); with ``initial``, the first call is made before `observe` returns.
    /// Changes made elsewhere (other processes, a person editing the file, Foundation's `UserDefaults` used
    /// directly) still come on the observation's queue, as do the calls of a handler whose writes call
    /// handlers that write, past 16 levels. Writers on several threads call the handler on each of them, so it
    /// may run on two threads at once. No lock of the library is held while it runs: it may read and write
    /// defaults (a write of an equal value reports nothing, so a handler that normalizes its key settles).
    public static let synchronous = ObservationOptions(rawValue: 1 << 3)

    /// Accepted for code written for key-value observing's options; every change carries the old value.
    public static let old = ObservationOptions(rawValue: 1 << 1)

    /// Accepted for code written for key-value observing's options; every change carries the new value.
    public static let new = ObservationOptions(rawValue: 1 << 2)
}
