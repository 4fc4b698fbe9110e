import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// The writes into Foundation that applied batches have decided on and that are not made yet, per `UserDefaults`
/// instance, in the order of their batches, with the value each leaves: how ``UserDefaultsStore`` changes
/// Foundation with no lock held.
///
/// Foundation calls out while it writes: on Apple platforms `set(_:forKey:)` and `removeObject(forKey:)` call
/// key-value observers and post `UserDefaults.didChangeNotification` on the writing thread, and the code they
/// reach may read or write settings through TypedDefaults, or wait for a thread that does. So a batch is
/// decided and queued here under the store's lock, where every read through the store sees its values at
/// once; then the thread whose turn it is for the instance makes the queued writes, in order, outside the lock,
/// and synchronizes the instance if asked to (Foundation on Linux loses a write made while it synchronizes, so
/// the two never overlap). A batch applied from inside Foundation's call, on the turn's own thread, is left to
/// the turn. One applied on another thread is too; on Linux, where Foundation calls nothing out and every batch
/// is synchronized before it returns, that thread waits for the synchronization.
///
/// Only used while holding the store's lock.
struct PendingFoundationWrites {
    /// What the holder of an instance's turn does next.
    enum Step {
        /// Sets the key's value; `nil` removes the key.
        case write(key: String, value: PropertyListValue?)
        case synchronize
    }

    /// A batch's place in its instance's writes, to wait for their synchronization.
    typealias Ticket = UInt64

    private struct Instance {
        var queue: [(key: String, value: PropertyListValue?)] = []
        /// The first write of `queue` not yet taken.
        var next = 0
        /// The keys with writes not yet made or not yet synchronized: the value the last leaves, and how many.
        var latest: [String: (value: PropertyListValue?, remaining: Int)] = [:]
        /// Whether to synchronize once the queued writes are made.
        var synchronizes = false
        /// Writes made but not synchronized yet, while a synchronization is due: their values stay the ones
        /// reads see until then, since Foundation on Linux reads a key removed after its last synchronization as
        /// still there.
        var awaitingSynchronization: [String] = []
        /// The thread that holds the instance's turn, if one does.
        var holder: pthread_t?
        /// The last ticket given; the one the synchronization under way covers; the last one synchronized.
        var issued: Ticket = 0
        var synchronizing: Ticket = 0
        var synchronized: Ticket = 0
        /// Whether the last synchronization succeeded.
        var lastSynchronization = true

        mutating func settle(_ key: String) {
            if let remaining = latest[key]?.remaining, remaining > 1 {
                latest[key]?.remaining = remaining - 1
            } else {
                latest[key] = nil
            }
        }
    }

    // Entries stay when idle (they hold no reference to their instance): tickets only grow, from one counter,
    // so an instance that takes a gone one's identifier cannot find its own tickets synchronized already.
    private var instances: [ObjectIdentifier: Instance] = [:]
    private var lastTicket: Ticket = 0

    /// The value the queued writes leave for `key` of `defaults`: `.some(nil)` for a removal, `nil` when none
    /// is queued (Foundation's value is then the current one).
    func value(forKey key: String, of defaults: UserDefaults) -> PropertyListValue?? {
        guard let entry = instances[ObjectIdentifier(defaults)]?.latest[key] else { return nil }
        return .some(entry.value)
    }

    /// The keys of `defaults` with queued writes, and the value each leaves (`nil` for a removal).
    func values(of defaults: UserDefaults) -> [String: PropertyListValue?] {
        (instances[ObjectIdentifier(defaults)]?.latest ?? [:]).mapValues(\.value)
    }

    /// Queues a write into `defaults` behind the others.
    mutating func append(key: String, value: PropertyListValue?, into defaults: UserDefaults) {
        instances[ObjectIdentifier(defaults), default: Instance()].queue.append((key, value))
        let remaining = instances[ObjectIdentifier(defaults)]?.latest[key]?.remaining ?? 0
        instances[ObjectIdentifier(defaults)]?.latest[key] = (value, remaining + 1)
    }

    /// Asks for `defaults` to be synchronized after the writes queued so far; returns the ticket to wait for.
    mutating func synchronize(_ defaults: UserDefaults) -> Ticket {
        lastTicket += 1
        instances[ObjectIdentifier(defaults), default: Instance()].synchronizes = true
        instances[ObjectIdentifier(defaults)]?.issued = lastTicket
        return lastTicket
    }

    /// Who makes the writes queued into `defaults`.
    enum Turn {
        /// The calling thread: it was given the turn.
        case given
        /// The calling thread, which holds the turn already (this is a call from inside Foundation's).
        case heldHere
        /// Another thread.
        case heldElsewhere
    }

    /// Gives the calling thread the turn of `defaults` if nobody has it.
    mutating func takeTurn(of defaults: UserDefaults) -> Turn {
        if let holder = instances[ObjectIdentifier(defaults)]?.holder {
            return pthread_equal(holder, pthread_self()) != 0 ? .heldHere : .heldElsewhere
        }
        instances[ObjectIdentifier(defaults), default: Instance()].holder = pthread_self()
        return .given
    }

    /// Whether the synchronization `ticket` waits for is done, and then whether the last one succeeded.
    func synchronization(of defaults: UserDefaults, for ticket: Ticket) -> Bool? {
        guard let instance = instances[ObjectIdentifier(defaults)], instance.synchronized >= ticket else { return nil }
        return instance.lastSynchronization
    }

    /// Notes that `done` (the holder's last step) is finished, `succeeded` if it was a synchronization, and
    /// gives the holder of the turn of `defaults` its next step: every queued write, then the synchronization
    /// if asked for; `nil` ends the turn.
    mutating func step(of defaults: UserDefaults, after done: Step?, succeeded: Bool) -> Step? {
        let id = ObjectIdentifier(defaults)
        guard var instance = instances[id] else { return nil }
        defer { instances[id] = instance }
        switch done {
        case .write(let key, _):
            if instance.synchronizes { instance.awaitingSynchronization.append(key) } else { instance.settle(key) }
        case .synchronize:
            for key in instance.awaitingSynchronization { instance.settle(key) }
            instance.awaitingSynchronization = []
            instance.synchronized = instance.synchronizing
            instance.lastSynchronization = succeeded
        case nil:
            break
        }
        if instance.next < instance.queue.count {
            let write = instance.queue[instance.next]
            instance.next += 1
            return .write(key: write.key, value: write.value)
        }
        instance.queue = []
        instance.next = 0
        if instance.synchronizes {
            instance.synchronizes = false
            instance.synchronizing = instance.issued
            return .synchronize
        }
        instance.holder = nil
        return nil
    }
}
