/// The one way a value changes from what it was, on any store: optimistically, with user code outside all locks.
///
/// The transform (a `modify` body, and the bridges around it) is user code, and user code may use the very
/// suite being changed: flush it, read it, write it through another adapter. So it never runs under a lock.
/// Instead the result is applied as a batch that expects the value the transform saw, and otherwise it
/// runs the transform again on the newer value. The result is exact under any contention, in one process or
/// many; the transform may run more than once.
enum ReadModifyWrite {
    /// How many times the value may change under a transform before the read-modify-write gives up: far
    /// more than contention between writers causes, and the sure sign of a transform that writes the very
    /// value it modifies (which would otherwise never settle).
    static let maximumAttempts = 100

    /// Runs `transform` on `current`, then `commit`, until a commit finds the value unchanged.
    ///
    /// `commit(expected, new)` stores `new` and returns `true` if the value is still `expected`, else returns
    /// `false` without storing anything; `current` then reads the newer value. Throws
    /// ``DefaultsError/writeFailed(suite:key:reason:)`` after ``maximumAttempts`` changes.
    static func run<Value>(
        store: some DefaultsStore,
        key: String?,
        from current: Value,
        _ transform: (Value) throws(DefaultsError) -> Value,
        commit: (_ expected: Value, _ new: Value) throws(DefaultsError) -> Bool,
        current read: () -> Value
    ) throws(DefaultsError) {
        var expected = current
        for _ in 0..<maximumAttempts {
            let new = try transform(expected)
            if try commit(expected, new) { return }
            expected = read()
        }
        throw .writeFailed(
            suite: store.name,
            key: key,
            reason: "the value changed \(maximumAttempts) times while modify ran, so nothing was written; does the "
                + "modify body write the value it modifies? Change it through the body's argument instead"
        )
    }
}
