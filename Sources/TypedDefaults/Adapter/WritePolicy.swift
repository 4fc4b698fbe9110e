/// When an adapter's writes reach the disk.
///
/// Foundation on Linux writes nothing until `synchronize()` is called, not even at exit. TypedDefaults always
/// writes, and every pending write is flushed when the process exits normally (returning from `main`, or
/// `exit()`); the policy decides how soon before that.
///
/// ## Usage
/// ```swift
/// // The default: bursts of writes become one file write, at most 100 ms after the first.
/// let settings = try DefaultsAdapter(suiteName: "com.example.app", keyStore: DefaultsKeys())
///
/// // Durable when the setter returns, at the cost of one file write per write.
/// let ledger = try DefaultsAdapter(suiteName: "com.example.ledger", keyStore: DefaultsKeys(), writePolicy: .immediate)
/// ```
public struct WritePolicy: Sendable, Hashable {
    /// The longest a write waits before it is written; `nil` writes at once.
    let delay: Duration?

    /// Writes are collected and written together, at most 100 milliseconds after the first of them.
    public static let coalesced = WritePolicy(delay: .milliseconds(100))

    /// Writes are collected and written together, at most `delay` after the first of them.
    public static func coalesced(within delay: Duration) -> WritePolicy {
        WritePolicy(delay: max(delay, .zero))
    }

    /// Each write is on disk (synced and renamed into place) when the setter returns.
    public static let immediate = WritePolicy(delay: nil)
}
