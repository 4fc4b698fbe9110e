import Foundation
import TypedDefaults

/// What one store knows of its suite: the values reads return, the server's last committed state, and the
/// writes not yet committed.
///
/// Every method runs under the store's memory lock and calls no user code.
struct SuiteMemory: Sendable {
    /// What reads return: ``server`` with ``pending`` laid over it.
    var values: [String: PropertyListValue] = [:]
    /// The values as of the server's ``version`` of the suite.
    var server: [String: PropertyListValue] = [:]
    /// The suite's version ``server`` reflects; every commit to the suite adds one.
    var version: Int64 = 0
    /// The id of the commit ``version`` came from; `nil` at version 0, or when not known (an old local copy).
    var head: UUID?
    /// Writes applied here and not yet committed, each with the sequence number of its latest write.
    var pending: [String: Pending] = [:]
    /// The sequence number of a not yet committed batch that removed every value; `nil` when none is waiting.
    var pendingRemoveAll: UInt64?
    var nextSequence: UInt64 = 0
    /// The version the local copy on disk holds.
    var savedVersion: Int64 = -1

    struct Pending: Sendable {
        var value: PropertyListValue?
        var sequence: UInt64
    }

    /// The writes waiting for the server, as one commit takes them.
    struct Outbox: Sendable {
        var writes: [String: Pending]
        var removeAll: UInt64?

        var isEmpty: Bool { writes.isEmpty && removeAll == nil }
    }

    var outbox: Outbox { Outbox(writes: pending, removeAll: pendingRemoveAll) }

    /// Applies a local batch to ``values`` and queues it for the server; returns what changed, or `nil` when the
    /// batch's expectations do not hold.
    mutating func applyLocally(_ batch: DefaultsBatch) -> [DefaultsStoreChange]? {
        guard let changed = batch.apply(to: &values) else { return nil }
        nextSequence += 1
        if batch.removesAll {
            pendingRemoveAll = nextSequence
            pending = [:]
        }
        for (key, value) in batch.writes { pending[key] = Pending(value: value, sequence: nextSequence) }
        return changed
    }

    /// Records committed server state (another instance's, or caught up), and returns the changes readers see:
    /// none for keys with a write of this process still waiting, which stays what they read.
    mutating func applyServer(
        _ rows: [String: PropertyListValue?],
        version newVersion: Int64,
        head newHead: UUID?
    ) -> [DefaultsStoreChange] {
        var changes: [DefaultsStoreChange] = []
        for (key, value) in rows.sorted(by: { $0.key < $1.key }) {
            server[key] = value
            guard pending[key] == nil, !(pendingRemoveAll != nil && value != nil) else { continue }
            let old = values[key]
            guard !old.isIdentical(to: value) else { continue }
            values[key] = value
            changes.append(DefaultsStoreChange(key: key, oldValue: old, newValue: value))
        }
        if newVersion >= version { (version, head) = (newVersion, newHead) }
        return changes
    }

    /// Replaces the server state whole (the server's suite was reset, or this is the first sight of it).
    mutating func replaceServer(with rows: [String: PropertyListValue], version newVersion: Int64, head newHead: UUID?)
        -> [DefaultsStoreChange]
    {
        var all: [String: PropertyListValue?] = rows.mapValues { $0 }
        for key in server.keys where rows[key] == nil { all[key] = .some(nil) }
        for key in values.keys where rows[key] == nil && pending[key] == nil { all[key] = .some(nil) }
        let changes = applyServer(all, version: newVersion, head: newHead)
        (version, head) = (newVersion, newHead)
        // Saved again even at the version the copy on disk has: it holds the suite that was replaced.
        savedVersion = -1
        return changes
    }

    /// Records that `outbox` (and `extra`'s writes) committed as `newVersion` (`nil`: at a version not known
    /// here), and returns the changes readers see.
    ///
    /// Memory may already be past that version, when the commit's own notification and later ones arrived
    /// first: then the server values are already right and must not be set back to this commit's. The pending
    /// writes the commit carried (and not written again since) leave the queue, and their keys read the server's
    /// value again.
    mutating func committed(_ outbox: Outbox, extra: DefaultsBatch?, version newVersion: Int64?, head newHead: UUID?)
        -> [DefaultsStoreChange]
    {
        let removesAll = outbox.removeAll != nil || extra?.removesAll == true
        var touched = Set(outbox.writes.keys).union(extra?.writes.keys ?? [:].keys)
        if removesAll { touched.formUnion(values.keys) }
        if let newVersion, version < newVersion {
            if removesAll { server = [:] }
            for (key, write) in outbox.writes { server[key] = write.value }
            for (key, value) in extra?.writes ?? [:] { server[key] = value }
            (version, head) = (newVersion, newHead)
        }
        for (key, write) in outbox.writes where pending[key]?.sequence == write.sequence { pending[key] = nil }
        if let removeAll = outbox.removeAll, pendingRemoveAll == removeAll { pendingRemoveAll = nil }
        guard pendingRemoveAll == nil else { return [] }
        var changes: [DefaultsStoreChange] = []
        for key in touched.sorted() where pending[key] == nil {
            let old = values[key]
            let new = server[key]
            guard !old.isIdentical(to: new) else { continue }
            values[key] = new
            changes.append(DefaultsStoreChange(key: key, oldValue: old, newValue: new))
        }
        return changes
    }

    /// The values `batch`'s expectations are checked against at the server: the server's, with this process's
    /// waiting writes laid over them (they commit in the same transaction, first).
    func valuesForExpectations(with outbox: Outbox) -> [String: PropertyListValue] {
        var result = outbox.removeAll != nil ? [:] : server
        for (key, write) in outbox.writes { result[key] = write.value }
        return result
    }
}
