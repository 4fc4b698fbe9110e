import Foundation

/// The writes into Foundation that applied batches have decided on and that are not made yet, per `UserDefaults`
/// instance, in the order of their batches, with the value each leaves: how ``UserDefaultsStore`` changes
/// Foundation with no lock held.
///
/// Foundation calls out while it writes: on Apple platforms `set(_:forKey:)` and `removeObject(forKey:)` call
/// key-value observers and post `UserDefaults.didChangeNotification` on the writing thread, and the code they
/// reach may read or write settings through TypedDefaults, or wait for a thread that does. So a batch is
/// decided and queued here under the store's lock, where every read through a store sees its values at once;
/// then the thread whose turn it is for the instance makes the queued writes, in order, outside the lock, and
/// synchronizes the instance if asked to (Foundation on Linux loses a write made while it synchronizes, so the
/// two never overlap). A thread that finds the turn taken (by another thread, or by its own from inside
/// Foundation's call) leaves its writes to the turn's holder and never waits.
///
/// Only used while holding the store's lock.
struct PendingFoundationWrites {
    /// What the holder of an instance's turn does next.
    enum Step {
        /// Sets the key's value; `nil` removes the key.
        case write(key: String, value: PropertyListValue?)
        case synchronize
    }

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
        /// Whether a thread holds the instance's turn.
        var taken = false

        mutating func settle(_ key: String) {
            if let remaining = latest[key]?.remaining, remaining > 1 {
                latest[key]?.remaining = remaining - 1
            } else {
                latest[key] = nil
            }
        }
    }

    private var instances: [ObjectIdentifier: Instance] = [:]

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

    /// Asks for `defaults` to be synchronized after the writes queued so far.
    mutating func synchronize(_ defaults: UserDefaults) {
        instances[ObjectIdentifier(defaults), default: Instance()].synchronizes = true
    }

    /// Gives the calling thread the turn of `defaults` if nobody has it; returns whether it did.
    mutating func takeTurn(of defaults: UserDefaults) -> Bool {
        guard instances[ObjectIdentifier(defaults)]?.taken != true else { return false }
        instances[ObjectIdentifier(defaults), default: Instance()].taken = true
        return true
    }

    /// Notes that `done` (the holder's last step) is finished, and gives the holder of the turn of `defaults`
    /// its next step: every queued write, then the synchronization if asked for; `nil` ends the turn.
    mutating func step(of defaults: UserDefaults, after done: Step?) -> Step? {
        let id = ObjectIdentifier(defaults)
        guard var instance = instances.removeValue(forKey: id) else { return nil }
        switch done {
        case .write(let key, _):
            if instance.synchronizes { instance.awaitingSynchronization.append(key) } else { instance.settle(key) }
        case .synchronize:
            for key in instance.awaitingSynchronization { instance.settle(key) }
            instance.awaitingSynchronization = []
        case nil:
            break
        }
        let step: Step?
        if instance.next < instance.queue.count {
            let write = instance.queue[instance.next]
            instance.next += 1
            step = .write(key: write.key, value: write.value)
        } else {
            instance.queue = []
            instance.next = 0
            if instance.synchronizes {
                instance.synchronizes = false
                step = .synchronize
            } else {
                instance.taken = false
                step = nil
            }
        }
        // An instance with nothing left is forgotten: its identifier may be another's once it is gone.
        if step != nil || !instance.latest.isEmpty { instances[id] = instance }
        return step
    }
}
