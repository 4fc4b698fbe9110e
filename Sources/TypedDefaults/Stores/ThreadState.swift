#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// What the calling thread is doing in the library: the `modify` whose body runs on it, and the adapter
/// writes in progress with the synchronous observers' handlers they collected.
///
/// Kept in a thread-local slot, made on the thread's first write and freed when the thread ends. Only ever
/// reached from its own thread, so it needs no lock; it is reached through a pointer, so a write pays no
/// reference counting for it: finding it costs one `pthread_getspecific`, where a task-local value costs
/// several times as much.
struct ThreadState {
    /// The read-modify-write whose transform runs on this thread (see ``ReadModifyWrite``).
    var modifying: ReadModifyWrite.Scope?
    /// Adapter writes in progress on the thread (a `modify` body may write other keys).
    var writes = 0
    /// Batches of synchronous handlers running on the thread, one inside another.
    var nesting = 0
    /// The synchronous handlers collected since the last write returned, in the order their changes were
    /// announced (see ``SynchronousDelivery``).
    var handlers: [@Sendable () -> Void] = []
    /// Whether the thread is flushing stores of the program's own for shutdown (see ``OpenStores``).
    var flushingStores = false

    /// The calling thread's state; made if `create` and there is none yet.
    ///
    /// `nil` when there is none, or when the process has used up its thread-local keys (at least 128): the
    /// library then does without (synchronous handlers go to their queues), rather than use a slot some other
    /// code owns.
    @inline(__always)
    static func current(create: Bool) -> UnsafeMutablePointer<ThreadState>? {
        guard let slot else { return nil }
        if let existing = pthread_getspecific(slot) { return existing.assumingMemoryBound(to: ThreadState.self) }
        guard create else { return nil }
        let made = UnsafeMutablePointer<ThreadState>.allocate(capacity: 1)
        made.initialize(to: ThreadState())
        pthread_setspecific(slot, made)
        return made
    }

    /// Performs an adapter's `write` with the thread counted as writing, then runs the synchronous observers'
    /// handlers its changes collected, with no lock held.
    @inline(__always)
    static func writing<Result>(_ write: () throws(DefaultsError) -> Result) throws(DefaultsError) -> Result {
        guard let state = current(create: true) else { return try write() }
        state.pointee.writes += 1
        let result: Swift.Result<Result, DefaultsError>
        do throws(DefaultsError) {
            result = .success(try write())
        } catch {
            result = .failure(error)
        }
        state.pointee.writes -= 1
        if !state.pointee.handlers.isEmpty { run(state) }
        return try result.get()
    }

    /// Runs the collected handlers; those their writes collect run within, when each of those writes returns.
    @inline(never)
    private static func run(_ state: UnsafeMutablePointer<ThreadState>) {
        let handlers = state.pointee.handlers
        state.pointee.handlers = []
        state.pointee.nesting += 1
        defer { state.pointee.nesting -= 1 }
        for handler in handlers { handler() }
    }

    private static let slot: pthread_key_t? = {
        var key = pthread_key_t()
        // The destructor's parameter is optional on Linux and not on Darwin; `release` takes either.
        let status = pthread_key_create(&key) { state in ThreadState.release(state) }
        return status == 0 ? key : nil
    }()

    /// Frees a thread's state when the thread ends.
    private static func release(_ state: UnsafeMutableRawPointer?) {
        guard let state = state?.assumingMemoryBound(to: ThreadState.self) else { return }
        state.deinitialize(count: 1)
        state.deallocate()
    }
}
