#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// Runs the handlers of ``ObservationOptions/synchronous`` observations on the writing thread, once the
/// write is done.
///
/// Stores announce changes while they hold the lock that ordered them, where no user code may run. So the
/// listener of a synchronous observation only collects its handler, and the adapter runs what was collected
/// as soon as the store has returned. The writing thread is marked in a thread-local slot for the length of
/// the write (two `pthread_setspecific` calls, no allocation, no task-local binding: writes pay next to
/// nothing when nobody observes synchronously). A change announced on a thread that is not writing through
/// an adapter (another process's change, seen by the file watch) goes to the observation's queue.
enum SynchronousDelivery {
    /// How deep handlers that write may nest (a handler's write calling a handler that writes, and so on)
    /// before further handlers go to their queues; a handler that keeps changing its own key then loops on
    /// its queue rather than overflowing the stack.
    static let maximumNesting = 16

    /// The handlers collected during one write, in the order their changes were announced.
    ///
    /// Only reached from the thread whose slot holds it.
    private final class Collected {
        var handlers: [@Sendable () -> Void] = []
    }

    /// The two thread-local slots, or `nil` when the process has used up its keys (at least 128).
    ///
    /// `slot` is `nil` outside a write, ``marked`` inside one until a handler is collected, then a retained
    /// `Collected`; `nesting` counts the collected batches running on the thread, one inside another. Without
    /// keys every delivery goes to its observation's queue, rather than to a slot some other code owns.
    private static let keys: (slot: pthread_key_t, nesting: pthread_key_t)? = {
        var slot = pthread_key_t()
        var nesting = pthread_key_t()
        guard pthread_key_create(&slot, nil) == 0 else { return nil }
        guard pthread_key_create(&nesting, nil) == 0 else {
            pthread_key_delete(slot)
            return nil
        }
        return (slot, nesting)
    }()

    /// The slot's value while a write has collected nothing: no object lives at address 1.
    private static let marked = 1

    /// Performs `write` with this thread marked as writing, then runs the handlers its changes collected.
    @inline(__always)
    static func around<Result>(_ write: () throws(DefaultsError) -> Result) throws(DefaultsError) -> Result {
        guard let slot = keys?.slot else { return try write() }
        let outer = pthread_getspecific(slot)
        pthread_setspecific(slot, UnsafeRawPointer(bitPattern: marked))
        let result: Swift.Result<Result, DefaultsError>
        do throws(DefaultsError) {
            result = .success(try write())
        } catch {
            result = .failure(error)
        }
        let collected = pthread_getspecific(slot)
        pthread_setspecific(slot, outer)
        if let collected, Int(bitPattern: collected) != marked {
            run(Unmanaged<Collected>.fromOpaque(collected).takeRetainedValue())
        }
        return try result.get()
    }

    /// Collects `handler` to run once the current write is done, or queues it on `observation`'s queue when
    /// this thread is not writing through an adapter (or its handlers nest too deep).
    static func deliver(_ handler: @escaping @Sendable () -> Void, for observation: DefaultsObservation) {
        guard let (slot, nesting) = keys, let current = pthread_getspecific(slot),
            Int(bitPattern: pthread_getspecific(nesting)) < maximumNesting
        else { return observation.deliver(handler) }
        let collected: Collected
        if Int(bitPattern: current) == marked {
            collected = Collected()
            pthread_setspecific(slot, Unmanaged.passRetained(collected).toOpaque())
        } else {
            collected = Unmanaged<Collected>.fromOpaque(current).takeUnretainedValue()
        }
        collected.handlers.append { observation.runIfActive(handler) }
    }

    private static func run(_ collected: Collected) {
        guard let nesting = keys?.nesting else { return }
        let depth = Int(bitPattern: pthread_getspecific(nesting))
        pthread_setspecific(nesting, UnsafeRawPointer(bitPattern: depth + 1))
        defer { pthread_setspecific(nesting, UnsafeRawPointer(bitPattern: depth)) }
        for handler in collected.handlers { handler() }
    }
}
