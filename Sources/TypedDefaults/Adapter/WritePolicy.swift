/// When an adapter's writes reach the suite's file.
///
/// On Linux every write to a suite is in the suite's journal when the setter returns, so it survives the
/// process however it ends, and the file holds it within 100 ms; the policy decides whether the setter also
/// waits for the file, synced to the disk. For a store of your own (one on a database server, say) the policy
/// decides how long the adapter holds writes before it flushes them: within the delay, at a normal exit, and
/// in ``DefaultsShutdown/flushAll()-2ivyt``.
///
/// ## Usage
/// ```swift
/// // The default: each write is in the journal at once and in the file within 100 ms.
/// let settings = try DefaultsAdapter(suiteName: "com.example.app", keyStore: DefaultsKeys())
///
/// // The file written and synced to the disk when the setter returns, at the cost of one file write per write.
/// let ledger = try DefaultsAdapter(suiteName: "com.example.ledger", keyStore: DefaultsKeys(), writePolicy: .immediate)
/// ```
public struct WritePolicy: Sendable, Hashable {
    /// The longest a write waits before it is written; `nil` writes at once.
    let delay: Duration?

    /// Writes are collected and written to the file together, at most 100 milliseconds after the first of them.
    public static let coalesced = WritePolicy(delay: .milliseconds(100))

    /// Writes are collected and flushed together, at most `delay` after the first of them: for a store of your
    /// own; a suite's file follows within 100 ms whatever the delay.
    public static func coalesced(within delay: Duration) -> WritePolicy {
        WritePolicy(delay: max(delay, .zero))
    }

    /// Each write is in the file, synced and renamed into place, when the setter returns.
    public static let immediate = WritePolicy(delay: nil)
}
