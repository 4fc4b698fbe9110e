/// Runs the handlers of ``ObservationOptions/synchronous`` observations on the writing thread, once the
/// write is done.
///
/// Stores announce changes while they hold the lock that ordered them, where no user code may run. So the
/// listener of a synchronous observation only collects its handler, in the writing thread's context, and the
/// adapter runs what was collected as soon as the store has returned (``ThreadContext/writing(_:)``). A change
/// announced on a thread that is not writing through an adapter (another process's change, seen by the file
/// watch) goes to the observation's queue.
enum SynchronousDelivery {
    /// How deep handlers that write may nest (a handler's write calling a handler that writes, and so on)
    /// before further handlers go to their queues; a handler that keeps changing its own key then loops on
    /// its queue rather than overflowing the stack.
    static let maximumNesting = 16

    /// Collects `handler` to run once the current write is done, or queues it on `observation`'s queue when
    /// this thread is not writing through an adapter (or its handlers nest too deep).
    static func deliver(_ handler: @escaping @Sendable () -> Void, for observation: DefaultsObservation) {
        let collected = ThreadContext.runAfterWrite(
            { observation.runIfActive(handler) },
            maximumNesting: maximumNesting
        )
        if !collected { observation.deliver(handler) }
    }
}
