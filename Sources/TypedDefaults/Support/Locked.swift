import Foundation

/// A value that is only reached while holding a lock.
///
/// Built on a pthread mutex rather than the Synchronization module's `Mutex`: on Linux `Mutex` waits on a
/// futex that ThreadSanitizer cannot see, so `swift test --sanitize=thread` would report every use of it as a
/// race.
@usableFromInline
final class Locked<State: Sendable>: @unchecked Sendable {
    // `state` is only read or written while holding `lock`, which also rules out overlapping accesses: the
    // run-time exclusivity check would only add to every use.
    @usableFromInline let lock = ShortLock()
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

    /// Runs `body` if the lock is free now; `nil`, without waiting, if another thread holds it.
    func withLockIfAvailable<Result, Failure>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result? {
        guard lock.try() else { return nil }
        defer { lock.unlock() }
        return try body(&state)
    }
}

#if canImport(Glibc)
import Glibc

/// A mutex for sections that take nanoseconds: a thread that finds it held spins briefly before sleeping.
///
/// With a mutex that puts a waiting thread to sleep at once, the holder's unlock has to wake it, and on a
/// busy machine the scheduler can give the woken thread the unlocking thread's core: a read that met a write
/// on the lock then waited milliseconds for a core. Spinning lets the waiter take the lock when it is
/// released, with no one to wake.
///
/// Every one is listed in ``LockRegistry``, so that `fork()` finds none of them held in the child.
@usableFromInline
final class ShortLock: @unchecked Sendable {
    // The mutex is only used through pthread calls, which are thread-safe; `node` is the registry's, under its
    // own mutex.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let node: UnsafeMutablePointer<LockRegistry.Node>

    init() {
        node = LockRegistry.register()
        mutex = LockRegistry.mutex(of: node)
    }

    deinit {
        LockRegistry.unregister(node)
    }

    @inlinable func lock() { pthread_mutex_lock(mutex) }
    @inlinable func unlock() { pthread_mutex_unlock(mutex) }
    /// Takes the lock if it is free; `false`, without waiting, if it is held.
    func `try`() -> Bool { pthread_mutex_trylock(mutex) == 0 }
}
#else
// Darwin's and Musl's mutexes; NSLock is a pthread mutex too.
@usableFromInline typealias ShortLock = NSLock
#endif
