// The library's own file store is Linux's; on Apple platforms values live in UserDefaults (see Package.swift).
#if !TYPED_DEFAULTS_FOUNDATION_STORAGE
import Foundation

// The write pipeline: pending writes applied in memory, then to the file under its lock, announcing what changed.
extension FileStore {
    /// Runs `mutate`, and queues an announcement of every value it changed (only when someone observes; inside
    /// `withoutPropagation`, `publish` tells only caches); with `keys`, only those can have changed, and only
    /// they are compared.
    func announcingChanges<Result, Failure>(
        _ state: inout State,
        onlyKeys keys: @autoclosure () -> [String]? = nil,
        _ mutate: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        // The first reading of the file is no change: observers that arrived before it must not hear of one.
        guard state.loaded, changes.hasObservers else { return try mutate(&state) }
        guard let keys = keys() else {
            let before = effectiveValues(state)
            let result = try mutate(&state)
            state.announcements += before.changes(to: effectiveValues(state))
            return result
        }
        if keys.count == 1 {
            // The usual write, one key: compared without building dictionaries.
            let key = keys[0]
            let before = Self.lookup(key, in: state)
            let result = try mutate(&state)
            if let change = DefaultsStoreChange(key: key, from: before, to: Self.lookup(key, in: state)) {
                state.announcements.append(change)
            }
            return result
        }
        let before = Self.values(of: keys, in: state)
        let result = try mutate(&state)
        state.announcements += before.changes(to: Self.values(of: keys, in: state))
        return result
    }

    // MARK: Writing

    /// Applies `batch`: in memory at once when it expects nothing (the file follows at the next ``flush()``),
    /// else to the file at once, under the file lock, so the expectation holds against every process.
    public func apply(_ batch: DefaultsBatch) throws(DefaultsError) -> Bool {
        try batch.checkStorable()
        guard batch.expected == nil else {
            loadIfNeeded()
            let (named, spellings) = state.withLock { state in (Self.naming(batch, in: state), state.spellings) }
            let batch = named ?? batch
            return try write(changingOnly: batch.removesAll ? nil : batch.writtenKeys) { values in
                guard spellings, case .snapshot = batch.expected else { return batch.apply(to: &values) != nil }
                // The expected snapshot is one `snapshot()` returned, keyed by spelling: it shows one of two equal
                // spellings, and the others stay for as long as a key equal to them does.
                guard batch.holds(for: Self.keyedBySpelling(values)) else { return false }
                let others = values.filter { KeySpelling.isMarked($0.key) }
                var checked = batch
                checked.expected = nil
                checked.apply(to: &values)
                for (name, value) in others where values[name] == nil {
                    if let spelling = KeySpelling.spelling(of: name), values[spelling] != nil { values[name] = value }
                }
                return true
            }
        }
        if batch.removesAll { loadIfNeeded() }
        withState { state in
            if state.spellings {
                Self.addPending(batch.renamingKeys { [state] in Self.name(for: $0, in: state) }, to: &state, self)
            } else {
                Self.addPending(batch, to: &state, self)
            }
        }
        return true
    }

    /// Adds a batch without expectations to the pending writes, announcing what changed.
    @inline(__always)
    private static func addPending(_ batch: DefaultsBatch, to state: inout State, _ store: FileStore) {
        store.announcingChanges(&state, onlyKeys: batch.removesAll ? nil : batch.writtenKeys) { state in
            state.generation += 1
            if batch.removesAll {
                state.pending.removeAll()
                state.pendingClear = state.generation
            }
            let generation = state.generation
            batch.forEachWrite { key, value in
                state.pending[key] = PendingWrite(value: value, generation: generation)
            }
        }
    }

    /// Writes this process's pending changes to the file; the backup copy follows in the background.
    public func flush() throws(DefaultsError) {
        guard state.withLock({ !$0.pending.isEmpty || $0.pendingClear != nil }) else { return }
        try write(changingOnly: [], readingValues: false) { _ in () }
    }

    /// Applies the pending writes and then `change` to the file, under the file lock; returns what `change`
    /// returned.
    ///
    /// `change` is the library's own code (user code has run before, outside the locks), and changes only
    /// the keys `changingOnly` names (`nil`: any key). The file is read, changed and written back whole; it is
    /// left alone when nothing changed and it is intact. `readingValues: false` says that `change` neither reads
    /// nor changes the values it is given (a flush), which lets the usual flush change the copy in memory in
    /// place.
    func write<Outcome>(
        changingOnly keys: [String]?,
        readingValues: Bool = true,
        _ change: (inout [String: PropertyListValue]) -> Outcome
    ) throws(DefaultsError) -> Outcome {
        try DefaultsDiagnostics.holding { () throws(DefaultsError) -> Outcome in
            fileLock.lock()
            defer { fileLock.unlock() }
            while true {
                if let outcome = try writeOnce(changingOnly: keys, readingValues: readingValues, change) {
                    return outcome
                }
            }
        }
    }

    /// One attempt at ``write(changingOnly:_:)``; `nil` when the file lock turned out to be lost, and nothing
    /// was written.
    ///
    /// Its cost beyond writing the file is in the keys it changes, not in the size of the suite: only they are
    /// compared, and only they are announced, unless another process changed the file meanwhile. Nor is the
    /// copy in memory copied whole for the usual flush (this process's writes of some keys, to the XML file it
    /// last read or wrote): copying a dictionary of the suite's values, and freeing the one it replaces, touches
    /// every key and value, about a millisecond of a busy core's time at 10,000 keys; the copy is changed in
    /// place once the file is written instead.
    func writeOnce<Outcome>(
        changingOnly changeKeys: [String]?,
        readingValues: Bool = true,
        _ change: (inout [String: PropertyListValue]) -> Outcome
    ) throws(DefaultsError) -> Outcome? {
        let (pending, pendingClear, generation, spellings) = state.withLock {
            ($0.pending, $0.pendingClear, $0.generation, $0.spellings)
        }
        // The keys this write can change; `nil` when it can change any (a `removeAll`).
        let touched: [String]? = pendingClear == nil ? changeKeys.map { Array(pending.keys) + $0 } : nil
        let sweep = state.withLock { state in
            defer { state.sweptTemporaryFiles = true }
            return !state.sweptTemporaryFiles
        }
        let attempt = try file.withExclusiveLock {
            lock throws(DefaultsError) -> (Outcome, Resolved, [DefaultsStoreChange], UInt64?, ChangedKeys?, Bool)? in
            if sweep { file.removeAbandonedTemporaryFiles() }
            // The file as this process last read or wrote it needs no second reading: only its version is
            // checked, under the lock, so another writer's change is never missed.
            let known = state.withLock { state in
                state.problem == nil && state.loaded
                    ? state.version.map { ($0, StoredBase(values: state.stored, serial: state.storedSerial)) } : nil
            }
            let current: SuiteFile.Contents
            let unchangedFile: Bool
            if let known, try file.currentVersion() == known.0 {
                current = .values(known.1.values, known.0, image: nil)
                unchangedFile = true
            } else {
                current = try readFile()
                unchangedFile = false
                if case .values(let values, _, _) = current, let count = file.writeCount() {
                    state.withLock { state in checkForRevert(values, writeCount: count, &state) }
                }
            }
            let resolved = try resolve(current, mustPreserve: true)
            // What this write read may name spellings that this process had not read yet (a first write, say).
            let spellings = spellings || resolved.spellings
            let original = resolved.values
            var values = original
            // The bytes: the file's image changed where this write changes it, when there is one for the file
            // this write read.
            let base: SuiteImage?
            if case .values(_, _, let read?) = current {
                base = read
            } else if unchangedFile {
                base = image.withLock { $0 }.flatMap { $0.version == known?.0 ? $0.image : nil }
            } else {
                base = nil
            }
            // The usual flush leaves `values` as they are, so they stay shared with the copy in memory, which is
            // changed in place once the file is written; the file's image is changed as `SuiteImage.writing`
            // would change it (the values cannot be a lone CF$UID: more stay than the pending writes remove).
            let inPlace: PropertyListXML.Image?
            if !readingValues, unchangedFile, pendingClear == nil, !spellings, case .xml(let xml)? = base,
                original.count >= pending.count + 2, !pending.keys.contains(where: KeySpelling.isMarked)
            {
                inPlace = xml
            } else {
                inPlace = nil
            }
            if pendingClear != nil { values.removeAll() }
            var folded: [String] = []
            for (key, write) in pending where inPlace == nil {
                guard KeySpelling.isMarked(key), original[key] == nil, let spelling = KeySpelling.spelling(of: key)
                else {
                    values[key] = write.value
                    continue
                }
                // A spelling kept under a name of its own that another program has since removed from the file is
                // written as its key: it changes the entry of an equal spelling, as any key the file lacks does.
                values[spelling] = write.value
                folded.append(spelling)
            }
            let touched = touched.map { $0 + folded }
            var unread: [String: PropertyListValue] = [:]
            let outcome = inPlace == nil ? change(&values) : change(&unread)
            // Which stored values this write changes, for the announcements: the keys it touched, and those
            // another process changed in the file, found here, outside the lock that readers take.
            let changed = known.flatMap { known in
                touched.map { touched in
                    let external = unchangedFile ? [] : known.1.values.keysDiffering(from: original)
                    return ChangedKeys(keys: touched + external, serial: known.1.serial)
                }
            }
            let written: [DefaultsStoreChange]
            if inPlace != nil {
                // `original.changes(to:amongKeys:)` with the pending writes applied, key by key.
                written = pending.compactMap {
                    DefaultsStoreChange(key: $0.key, from: original[$0.key], to: $0.value.value)
                }
            } else {
                written = original.changes(to: values, amongKeys: touched)
            }
            if case .values = current, written.isEmpty {
                let version = try file.currentVersion()
                let resolved = Resolved(values: values, version: version, problem: nil, spellings: spellings)
                return (outcome, resolved, [], nil, changed, false)
            }
            let bytes =
                inPlace.map { .xml($0.updating(Dictionary(written.map { ($0.key, $0.newValue) }) { $1 })) }
                ?? SuiteImage.writing(
                    values,
                    changes: written.map { ($0.key, $0.newValue) },
                    holdingSpellings: spellings,
                    over: base
                )
            let readVersion: SuiteFile.Version? =
                switch current {
                case .values(_, let version, _), .damaged(_, let version, _): version
                case .missing: nil
                }
            guard let (version, writeCount) = try file.write(bytes.bytes, holding: lock, over: readVersion) else {
                return nil
            }
            keepImage(bytes, of: version)
            let data = bytes.bytes
            // The backup bytes replaced are freed after the lock, as a replaced image is.
            let replacedBackup = state.withLock { state in
                state.fileWrites += 1
                defer { state.pendingBackup = (data, version) }
                return state.pendingBackup
            }
            _ = replacedBackup
            backups.request(for: self, within: .milliseconds(50))
            return (
                outcome,
                Resolved(
                    // In place: `written`, applied to the copy in memory; nothing here may share its storage.
                    values: inPlace == nil ? bytes.values(afterWriting: values, holdingSpellings: spellings) : [:],
                    version: version,
                    problem: nil,
                    goodSince: version.modified,
                    spellings: spellings || bytes.holdsSpellings
                ),
                written, writeCount, changed, inPlace != nil
            )
        }
        guard let (outcome, resolved, written, writeCount, changed, inPlace) = attempt else { return nil }
        let retired = withState { state in
            // Announces what other processes changed in the file and what `modify` changed; this process's
            // own pending writes were announced when they were made.
            defer {
                if !written.isEmpty {
                    state.lastWritten = Dictionary(written.map { ($0.key, $0) }, uniquingKeysWith: { $1 })
                    state.lastWriteCount = writeCount
                }
            }
            let keys = changed?.keys(for: state)
            return announcingChanges(&state, onlyKeys: keys) { state -> [String: PropertyListValue] in
                defer {
                    if !inPlace {
                        state.stored = resolved.values
                    } else {
                        // Changed where it holds only what the file held before this write (always, since the
                        // file lock keeps every other change of it out); else it is read again at the next look.
                        if changed?.serial != state.storedSerial { state.version = nil }
                        for change in written { state.stored[change.key] = change.newValue }
                    }
                }
                state.version = resolved.version
                state.spellings = resolved.spellings || state.pending.keys.contains(where: KeySpelling.isMarked)
                state.loaded = true
                state.problem = nil
                state.lastCheck = Self.now()
                if let since = resolved.goodSince { state.goodSince = since }
                state.pending = state.pending.filter { $0.value.generation > generation }
                if let clear = state.pendingClear, clear <= generation { state.pendingClear = nil }
                // Held here, a second reference would make the change in place copy the values after all.
                return inPlace ? [:] : state.stored
            }
        }
        // The values replaced are freed here, after the lock: freeing a large suite's takes milliseconds.
        _ = retired
        return outcome
    }
}
#endif
