import Foundation
import TypedDefaults

/// A store with one deliberate flaw, each a mistake a real store could make, to prove the kit catches it.
///
/// Without a flaw it is a correct durable store in memory (it passes the kit), so a failing check is the
/// flaw's doing.
final class FlawedStore: DefaultsStore, @unchecked Sendable {
    enum Flaw: String, Sendable, CaseIterable {
        /// Applies a batch's writes one key at a time, each under the lock on its own, and checks the
        /// expectations under the lock before that: as a store writing one row per key would.
        case appliesKeyByKey
        /// Stores `.double(-0.0)` as `.double(0.0)`, as Foundation's XML writer on Linux does.
        case dropsNegativeZeroSign
        /// Stores strings in Unicode's composed form (NFC), as some databases and file systems do.
        case normalizesStrings
        /// Announces each batch's changes twice.
        case announcesTwice
        /// Announces nothing.
        case announcesNothing
        /// Announces each change with no old value.
        case forgetsOldValues
        /// Compares values with `==`, in expectations and to tell what changed: `-0.0` equals `0.0` and
        /// `"é"` equals `"e\u{301}"`.
        case comparesWithEquality
        /// Applies batches whatever they expect.
        case ignoresExpectations
        /// Announces only the writes of a batch that removes everything, not the keys it removed.
        case hidesRemoveAll
        /// Makes values durable on flush but never removes a key from what is durable, and makes batches
        /// with expectations durable only at the next flush.
        case flushKeepsRemovedKeys
        /// Takes in other processes' changes without announcing them.
        case deafToOtherProcesses
    }

    let flaw: Flaw?
    let name: String
    let changes = DefaultsStoreChanges()
    // `values` and `durable` are only read or written while holding `lock`.
    private let lock = NSLock()
    private var values: [String: PropertyListValue] = [:]
    private var durable: [String: PropertyListValue] = [:]

    init(_ flaw: Flaw?) {
        self.flaw = flaw
        self.name = flaw?.rawValue ?? "flawless"
    }

    private func locked<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    var durableValues: [String: PropertyListValue] { locked { durable } }

    func value(forKey key: String) -> PropertyListValue? { locked { values[key] } }

    func snapshot() -> [String: PropertyListValue] { locked { values } }

    func apply(_ batch: DefaultsBatch) -> Bool {
        let batch = stored(batch)
        switch flaw {
        case .appliesKeyByKey:
            return applyKeyByKey(batch)
        case .comparesWithEquality:
            return locked {
                guard batch.holdsByEquality(for: values) else { return false }
                let before = values
                if batch.removesAll { values.removeAll() }
                for (key, new) in batch.writes { values[key] = new }
                let changed = Set(before.keys).union(values.keys).filter { before[$0] != values[$0] }
                changes.publish(
                    changed.map { DefaultsStoreChange(key: $0, oldValue: before[$0], newValue: values[$0]) }
                )
                return true
            }
        case .ignoresExpectations:
            // Time passes between reading and writing, as it would for a store doing I/O: other writers get in.
            usleep(50)
            var unconditional = batch
            unconditional.expected = nil
            return apply(unconditional, durably: false)
        default:
            return apply(batch, durably: batch.expected != nil && flaw != .flushKeepsRemovedKeys)
        }
    }

    private func apply(_ batch: DefaultsBatch, durably: Bool) -> Bool {
        locked {
            guard var changed = batch.apply(to: &values) else { return false }
            if durably { durable = values }
            switch flaw {
            case .announcesTwice:
                changes.publish(changed)
                changes.publish(changed)
            case .announcesNothing:
                break
            case .forgetsOldValues:
                changes.publish(changed.map { DefaultsStoreChange(key: $0.key, oldValue: nil, newValue: $0.newValue) })
            case .hidesRemoveAll where batch.removesAll:
                changed.removeAll { $0.newValue == nil && batch.writes[$0.key] == nil }
                changes.publish(changed)
            default:
                changes.publish(changed)
            }
            return true
        }
    }

    private func applyKeyByKey(_ batch: DefaultsBatch) -> Bool {
        guard locked({ batch.holds(for: values) }) else { return false }
        if batch.removesAll {
            let removed = locked {
                defer { values.removeAll() }
                return values
            }
            changes.publish(removed.map { DefaultsStoreChange(key: $0.key, oldValue: $0.value, newValue: nil) })
        }
        for (key, new) in batch.writes {
            // Another thread may run between two keys, as it would between two rows of a database.
            sched_yield()
            let old = locked {
                defer { values[key] = new }
                return values[key]
            }
            if !old.isIdentical(to: new) {
                changes.publish([DefaultsStoreChange(key: key, oldValue: old, newValue: new)])
            }
        }
        return true
    }

    /// The batch with the values the flaw changes, as the store would keep them.
    private func stored(_ batch: DefaultsBatch) -> DefaultsBatch {
        var batch = batch
        switch flaw {
        case .dropsNegativeZeroSign:
            batch.writes = batch.writes.mapValues { $0.map(Self.withoutNegativeZero) }
        case .normalizesStrings:
            batch.writes = batch.writes.mapValues { $0.map(Self.composed) }
        default:
            break
        }
        return batch
    }

    func flush() {
        locked {
            if flaw == .flushKeepsRemovedKeys {
                durable.merge(values) { _, new in new }
            } else {
                durable = values
            }
        }
    }

    /// Changes values as another process would, announcing the changes unless the store is deaf to them.
    func writeFromAnotherProcess(_ written: [String: PropertyListValue]) {
        locked {
            guard let changed = DefaultsBatch(writes: written.mapValues { $0 }).apply(to: &values) else { return }
            durable.merge(written) { _, new in new }
            if flaw != .deafToOtherProcesses { changes.publish(changed) }
        }
    }

    private static func withoutNegativeZero(_ value: PropertyListValue) -> PropertyListValue {
        switch value {
        case .double(let number) where number == 0: .double(0)
        case .array(let items): .array(items.map(withoutNegativeZero))
        case .dictionary(let entries): .dictionary(entries.mapValues(withoutNegativeZero))
        default: value
        }
    }

    private static func composed(_ value: PropertyListValue) -> PropertyListValue {
        switch value {
        case .string(let text): .string(text.precomposedStringWithCanonicalMapping)
        case .array(let items): .array(items.map(composed))
        case .dictionary(let entries): .dictionary(entries.mapValues(composed))
        default: value
        }
    }
}

extension DefaultsBatch {
    /// Whether `values` hold what the batch expects, by `==` rather than bit for bit: the mistake.
    fileprivate func holdsByEquality(for values: [String: PropertyListValue]) -> Bool {
        switch expected {
        case nil: true
        case .values(let expected): expected.allSatisfy { values[$0.key] == $0.value }
        case .snapshot(let expected): values == expected
        }
    }
}
