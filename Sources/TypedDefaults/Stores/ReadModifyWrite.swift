import Foundation

/// The one way a value changes from what it was, on any store: optimistically, with user code outside all locks.
///
/// The transform (a `modify` body, and the bridges around it) is user code, and user code may use the very
/// suite being changed: flush it, read it, write it through another adapter. So it never runs under a lock.
/// Instead the result is applied as a batch that expects the value the transform saw, and otherwise it
/// runs the transform again on the newer value. The result is exact under any contention, in one process or
/// many; the transform may run more than once.
enum ReadModifyWrite {
    /// How many times a store may refuse a commit while the value stays the one the transform saw before the
    /// read-modify-write gives up: a store that refuses for no reason would otherwise never settle.
    static let maximumStalls = 100

    /// How many times other writers may change the value under a transform before the read-modify-write
    /// gives up; past the first few, attempts back off, so contention this long takes seconds.
    static let maximumAttempts = 10_000

    /// Notes a write of `key` (of every key, with `nil`) to `store` by code running inside a transform.
    @inline(__always)
    static func noteWrite(to store: some DefaultsStore, key: String?) {
        var running = ThreadContext.current(create: false)?.pointee.modifying
        while let scope = running {
            if scope.store == ObjectIdentifier(store), scope.key == nil || key == nil || scope.key == key {
                scope.wroteItsOwnValue = true
            }
            running = scope.outer
        }
    }

    /// Runs `transform` on `current`, then `commit`, until a commit finds the value unchanged.
    ///
    /// `commit(expected, new)` stores `new` and returns `true` if the value is still `expected`, else returns
    /// `false` without storing anything; `current` then reads the newer value, and `same` tells whether it
    /// changed. Throws ``DefaultsError/writeFailed(suite:key:reason:)`` when the transform writes the value
    /// itself, after ``maximumStalls`` refusals of an unchanged value, or after ``maximumAttempts`` in all.
    static func run<Value>(
        store: some DefaultsStore,
        key: String?,
        from current: Value,
        _ transform: (Value) throws(DefaultsError) -> Value,
        same: (Value, Value) -> Bool,
        commit: (_ expected: Value, _ new: Value) throws(DefaultsError) -> Bool,
        current read: () -> Value
    ) throws(DefaultsError) {
        var expected = current
        var stalls = 0
        // Other writers got there first: past a few rounds, wait a little (up to a millisecond, at random) so
        // that one of them finishes rather than all of them starting over together.
        var backoff = Backoff(first: .microseconds(16), limit: .microseconds(1024), jittered: true)
        for attempt in 0..<maximumAttempts {
            // The transform runs on this thread: a thread without a context (no keys left) catches nothing.
            let context = ThreadContext.current(create: true)
            let outer = context?.pointee.modifying
            let scope = ThreadContext.Modification(store: ObjectIdentifier(store), key: key, outer: outer)
            context?.pointee.modifying = scope
            let transformed = Result { () throws(DefaultsError) in try transform(expected) }
            context?.pointee.modifying = outer
            let new = try transformed.get()
            if scope.wroteItsOwnValue {
                throw .writeFailed(
                    suite: store.name,
                    key: key,
                    reason: "the modify body wrote the value it modifies, so nothing more was written; change it "
                        + "through the body's argument instead"
                )
            }
            if try commit(expected, new) { return }
            let newer = read()
            if same(newer, expected) {
                stalls += 1
                guard stalls < maximumStalls else { break }
            }
            expected = newer
            if attempt >= 4 { backoff.pause() }
        }
        throw .writeFailed(
            suite: store.name,
            key: key,
            reason: stalls >= maximumStalls
                ? "the store refused the write \(maximumStalls) times though the value did not change, so nothing "
                    + "was written"
                : "the value changed \(maximumAttempts) times while modify ran, so nothing was written"
        )
    }
}
