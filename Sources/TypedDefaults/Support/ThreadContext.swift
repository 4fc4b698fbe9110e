import Dispatch

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// The context of the current write: what the calling thread is doing in the library.
///
/// The one per-thread state of the library. Each field is about writes and locks, and one layer above gives
/// it its use: ``ReadModifyWrite`` the modifications, the adapter's writes and synchronous observations the
/// work after a write, diagnostics the work held while locks may be held, `withoutPropagation` the silence,
/// and the shutdown flush its guard.
///
/// Kept in a thread-local slot, made on the thread's first write and freed when the thread ends. Only ever
/// reached from its own thread, so it needs no lock; it is reached through a pointer, so a write pays no
/// reference counting for it: finding it costs one `pthread_getspecific`, where a task-local value costs
/// several times as much. Every entry point takes a synchronous closure, so the code it covers runs on this
/// thread from start to end.
struct ThreadContext {
    /// The innermost read-modify-write whose transform runs on this thread (see ``ReadModifyWrite``).
    var modifying: Modification?
    /// Writes in progress on the thread (a `modify` body may write other keys).
    var writes = 0
    /// Work collected since the last write returned, in order, to run once it has, with no lock held (the
    /// handlers of synchronous observations).
    var afterWrite: [() -> Void] = []
    /// How deep work run after a write nests, one inside another.
    var afterWriteNesting = 0
    /// Work held while the thread may hold the library's locks, to run once it does not (diagnostics, whose
    /// handler is user code); `nil` outside ``holdingLocks(_:)``.
    var whileLocked: [() -> Void]?
    /// Whether the changes the thread makes are kept from observers (caches still hear of them).
    var isSilent = false
    /// Whether the thread is flushing every store, so that a flush asked for inside leaves them to it.
    var flushingAll = false

    /// One read-modify-write: a write its own transform makes to the very value it modifies is caught at once
    /// rather than taken for contention.
    final class Modification {
        let store: ObjectIdentifier
        /// The key modified; `nil` for every key of the store.
        let key: String?
        /// The read-modify-write whose transform this one runs inside, if any: a write in a nested `modify`
        /// body can be one of the outer body's own value too.
        let outer: Modification?
        var wroteItsOwnValue = false

        init(store: ObjectIdentifier, key: String?, outer: Modification?) {
            self.store = store
            self.key = key
            self.outer = outer
        }
    }

    /// The calling thread's context; made if `create` and there is none yet.
    ///
    /// `nil` when there is none, or when the process has used up its thread-local keys (at least 128): the
    /// library then does without (synchronous handlers go to their queues, `withoutPropagation` silences
    /// nothing), rather than use a slot some other code owns.
    @inline(__always)
    static func current(create: Bool) -> UnsafeMutablePointer<ThreadContext>? {
        guard let slot else { return nil }
        if let existing = pthread_getspecific(slot) { return existing.assumingMemoryBound(to: ThreadContext.self) }
        guard create else { return nil }
        let made = UnsafeMutablePointer<ThreadContext>.allocate(capacity: 1)
        made.initialize(to: ThreadContext())
        pthread_setspecific(slot, made)
        return made
    }

    // MARK: - Writes

    /// Performs an adapter's `write` with the thread counted as writing, then runs the work its changes
    /// collected (``runAfterWrite(_:maximumNesting:)``), with no lock held.
    @inline(__always)
    static func writing<Result, Failure>(_ write: () throws(Failure) -> Result) throws(Failure) -> Result {
        guard let context = current(create: true) else { return try write() }
        context.pointee.writes += 1
        let result = Swift.Result { () throws(Failure) -> Result in try write() }
        context.pointee.writes -= 1
        if !context.pointee.afterWrite.isEmpty { runAfterWrite(context) }
        return try result.get()
    }

    /// Collects `work` to run when the thread's current write returns; `false`, collecting nothing, when the
    /// thread is not writing or such work already nests `maximumNesting` deep.
    static func runAfterWrite(_ work: @escaping () -> Void, maximumNesting: Int) -> Bool {
        guard let context = current(create: false), context.pointee.writes > 0,
            context.pointee.afterWriteNesting < maximumNesting
        else { return false }
        context.pointee.afterWrite.append(work)
        return true
    }

    /// Runs the collected work; what the writes inside it collect runs within, when each of those returns.
    @inline(never)
    private static func runAfterWrite(_ context: UnsafeMutablePointer<ThreadContext>) {
        let work = context.pointee.afterWrite
        context.pointee.afterWrite = []
        context.pointee.afterWriteNesting += 1
        defer { context.pointee.afterWriteNesting -= 1 }
        for item in work { item() }
    }

    // MARK: - Locks

    /// Runs `body`, which may hold the library's locks, and then the work ``whenUnlocked(_:)`` held back
    /// meanwhile, in order.
    static func holdingLocks<Result, Failure>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        guard let context = current(create: true), context.pointee.whileLocked == nil else { return try body() }
        context.pointee.whileLocked = []
        let result = Swift.Result { () throws(Failure) -> Result in try body() }
        let held = context.pointee.whileLocked ?? []
        context.pointee.whileLocked = nil
        for work in held { work() }
        return try result.get()
    }

    /// Runs `work` now, or once the thread's ``holdingLocks(_:)`` returns if it is inside one.
    static func whenUnlocked(_ work: @escaping @Sendable () -> Void) {
        // Without a context nothing tells whether a lock is held: the work waits for another thread.
        guard slot != nil else { return DispatchQueue.global().async(execute: work) }
        guard let context = current(create: false), context.pointee.whileLocked != nil else { return work() }
        context.pointee.whileLocked?.append(work)
    }

    // MARK: - Silence

    /// Whether the changes the thread makes are kept from observers (see ``silently(_:)``).
    static var isSilent: Bool {
        current(create: false)?.pointee.isSilent ?? false
    }

    /// Runs `body` with the changes it makes on this thread kept from observers.
    static func silently<Result>(_ body: () throws -> Result) rethrows -> Result {
        guard let context = current(create: true) else { return try body() }
        let outer = context.pointee.isSilent
        context.pointee.isSilent = true
        defer { context.pointee.isSilent = outer }
        return try body()
    }

    // MARK: - The slot

    private static let slot: pthread_key_t? = {
        var key = pthread_key_t()
        // The destructor's parameter is optional on Linux and not on Darwin; `release` takes either.
        let status = pthread_key_create(&key) { context in ThreadContext.release(context) }
        return status == 0 ? key : nil
    }()

    /// Frees a thread's context when the thread ends.
    private static func release(_ context: UnsafeMutableRawPointer?) {
        guard let context = context?.assumingMemoryBound(to: ThreadContext.self) else { return }
        context.deinitialize(count: 1)
        context.deallocate()
    }
}
