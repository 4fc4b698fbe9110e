import Foundation

/// A value that is only reached while holding a lock.
///
/// Built on `NSLock` (a pthread mutex) rather than the Synchronization module's `Mutex`: on Linux `Mutex`
/// waits on a futex that ThreadSanitizer cannot see, so `swift test --sanitize=thread` would report every
/// use of it as a race.
@usableFromInline
final class Locked<State: Sendable>: @unchecked Sendable {
    // `state` is only read or written while holding `lock`, which also rules out overlapping accesses: the
    // run-time exclusivity check would only add to every use.
    @usableFromInline let lock = NSLock()
    @exclusivity(unchecked) @usableFromInline var state: State

    @usableFromInline
    init(_ state: State) {
        self.state = state
    }

    @inlinable
    func withLock<Result, Failure>(_ body: (inout State) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
