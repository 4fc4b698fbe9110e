/// The one way every store changes a value from what it was: optimistically, with user code outside all locks.
///
/// The transform (a `modify` body, and the bridges around it) is user code, and user code may use the very
/// suite being changed: flush it, read it, write it through another adapter. So it never runs under a lock.
/// Instead the store commits the result only if the value is still the one the transform saw, and otherwise
/// runs the transform again on the newer value. The result is exact under any contention, in one process or
/// many; the transform may run more than once.
enum ReadModifyWrite {
    /// How many times the value may change under a transform before the read-modify-write gives up: far
    /// more than contention between writers causes, and the sure sign of a transform that writes the very
    /// value it modifies (which would otherwise never settle).
    static let maximumAttempts = 100

    /// Runs `transform` on `current`, then `commit`, until a commit finds the value unchanged.
    ///
    /// `commit(expected, new)` stores `new` and returns `nil` if the value is still `expected`, else returns
    /// the value it found, without storing anything. Throws ``DefaultsError/writeFailed(suite:key:reason:)``
    /// after ``maximumAttempts`` changes.
    static func run<Value>(
        suite: String,
        key: String?,
        from current: Value,
        _ transform: (Value) throws(DefaultsError) -> Value,
        commit: (_ expected: Value, _ new: Value) throws(DefaultsError) -> Value?
    ) throws(DefaultsError) {
        var expected = current
        for _ in 0..<maximumAttempts {
            let new = try transform(expected)
            guard let newer = try commit(expected, new) else { return }
            expected = newer
        }
        throw .writeFailed(
            suite: suite,
            key: key,
            reason: "the value changed \(maximumAttempts) times while modify ran, so nothing was written; does the "
                + "modify body write the value it modifies? Change it through the body's argument instead"
        )
    }

    /// ``run(suite:key:from:_:commit:)`` with a transform that changes its argument in place.
    static func run<Value>(
        suite: String,
        key: String?,
        from current: Value,
        inPlace transform: (inout Value) throws(DefaultsError) -> Void,
        commit: (_ expected: Value, _ new: Value) throws(DefaultsError) -> Value?
    ) throws(DefaultsError) {
        try run(
            suite: suite,
            key: key,
            from: current,
            { value throws(DefaultsError) in
                var value = value
                try transform(&value)
                return value
            },
            commit: commit
        )
    }
}
