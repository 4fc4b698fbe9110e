/// Runs the handlers of ``ObservationOptions/synchronous`` observations on the writing thread, once the
/// write is done.
///
/// Stores announce changes while they hold the lock that ordered them, where no user code may run. So the
/// listener of a synchronous observation only collects its handler, in the writing thread's state, and the
/// adapter runs what was collected as soon as the store has returned. The thread's writes are counted in its
/// ``ThreadState``, which every write looks up anyway. A change announced
/// on a thread that is not writing through an adapter (another process's change, seen by the file watch)
/// goes to the observation's queue.
enum SynchronousDelivery {
    /// How deep handlers that write may nest (a handler's write calling a handler that writes, and so on)
    /// before further handlers go to their queues; a handler that keeps changing its own key then loops on
    /// its queue rather than overflowing the stack.
    static let maximumNesting = 16

    /// Performs `write` with the thread counted as writing, then runs the handlers its changes collected.
    @inline(__always)
    static func around<Result>(_ write: () throws(DefaultsError) -> Result) throws(DefaultsError) -> Result {
        guard let state = ThreadState.current(create: true) else { return try write() }
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

    /// Collects `handler` to run once the current write is done, or queues it on `observation`'s queue when
    /// this thread is not writing through an adapter (or its handlers nest too deep).
    static func deliver(_ handler: @escaping @Sendable () -> Void, for observation: DefaultsObservation) {
        guard let state = ThreadState.current(create: false), state.pointee.writes > 0,
            state.pointee.nesting < maximumNesting
        else { return observation.deliver(handler) }
        state.pointee.handlers.append { observation.runIfActive(handler) }
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
}
