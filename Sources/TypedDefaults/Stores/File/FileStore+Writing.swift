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

    /// What `writes` (the journal's, in order) and then `unappended` (payloads of this process's) come to, named
    /// as the store names keys over `values` (see ``KeySpelling``).
    static func net(
        of writes: [SuiteJournal.Write],
        then unappended: [[UInt8]],
        over values: [String: PropertyListValue],
        spellings: Bool
    ) -> SuiteJournal.Net {
        var net = SuiteJournal.Net()
        let recorded = unappended.flatMap { SuiteJournal.writes(in: $0[...]) ?? [] }
        for write in writes + recorded {
            guard case .set(let key, let value) = write else {
                net.add(write)
                continue
            }
            net.writes[journalName(of: key, over: values, and: net.writes, spellings: spellings)] = .some(value)
        }
        return net
    }

    /// The name a journal's key is kept under in `values` and `writes` (see ``name(for:in:)``).
    static func journalName(
        of key: String,
        over values: [String: PropertyListValue],
        and writes: [String: PropertyListValue?],
        spellings: Bool
    ) -> String {
        if KeySpelling.isMarked(key) { return KeySpelling.name(of: key) }
        guard spellings else { return key }
        let spelled = KeySpelling.name(of: key)
        return values[spelled] != nil || writes[spelled] != nil ? spelled : key
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
        // Arranged first, so that a write that cannot be appended now is folded into the file once it can be.
        folds.request(for: self, within: Self.foldInterval)
        // In memory and in the journal in the same order: a later write is appended after an earlier one.
        try appending.withLock { appender throws(DefaultsError) in
            withState { state in
                if state.spellings {
                    Self.addPending(batch.renamingKeys { [state] in Self.name(for: $0, in: state) }, to: &state, self)
                } else {
                    Self.addPending(batch, to: &state, self)
                }
            }
            // The record names each key by its spelling, as the file does.
            try file.appendToJournal(Self.payload(of: batch), with: &appender)
        }
        return true
    }

    /// The journal record's payload for a batch without expectations.
    static func payload(of batch: DefaultsBatch) -> [UInt8] {
        var payload = SuiteJournal.Payload(removingAll: batch.removesAll)
        batch.forEachWrite { key, value in payload.add(key, value) }
        return payload.bytes
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

    /// Rebuilds the file with the journal's writes (this process's and any other's) and empties the journal;
    /// the backup copy follows in the background.
    ///
    /// Each write is in the journal, and so survives the process, when `set` returns; a flush makes the file
    /// itself current, synced to the disk, for other programs and for a power loss.
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
            let deadline = ContinuousClock.now + SuiteFile.lockWaitLimit
            var backoff = Backoff(first: .microseconds(200), limit: .milliseconds(5))
            while true {
                // The suite's lock first, then `appending` only if it is free: a `set` of this process that holds
                // `appending` may be waiting for the shared lock, which this one keeps from it until released.
                let attempt = try file.withExclusiveLock { lock throws(DefaultsError) -> WriteAttempt<Outcome> in
                    let attempt = try appending.withLockIfAvailable {
                        appender throws(DefaultsError) -> WriteAttempt<Outcome> in
                        let done = try writeOnce(
                            holding: lock,
                            changingOnly: keys,
                            readingValues: readingValues,
                            appender: &appender,
                            change
                        )
                        return done.map { .done($0.outcome, retired: $0.retired) } ?? .lockLost
                    }
                    return attempt ?? .busy
                }
                switch attempt {
                case .done(let outcome, let retired):
                    // The values replaced are freed here, after the locks: freeing a large suite's takes
                    // milliseconds.
                    _ = retired
                    return outcome
                case .lockLost:
                    // The lock file was replaced: this write read the file under a lock that no longer guards it.
                    continue
                case .busy:
                    guard ContinuousClock.now < deadline else { throw file.lockTimeout() }
                    backoff.pause()
                }
            }
        }
    }

    /// How one attempt at a write ended.
    enum WriteAttempt<Outcome> {
        case done(Outcome, retired: [String: PropertyListValue])
        /// The lock file was replaced while held; nothing was written.
        case lockLost
        /// A thread of this process was appending; nothing was done.
        case busy
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
        holding lock: SuiteFile.HeldLock,
        changingOnly changeKeys: [String]?,
        readingValues: Bool = true,
        appender: inout SuiteFile.JournalAppender,
        _ change: (inout [String: PropertyListValue]) -> Outcome
    ) throws(DefaultsError) -> (outcome: Outcome, retired: [String: PropertyListValue])? {
        // Held under `appending`: no write of this process is between memory and the journal.
        // Copies under the lock readers take (constant time); what is made of them is made after.
        let (pendingCopy, pendingClear, generation, spellings, journalCount, journalOffset) = state.withLock {
            ($0.pending, $0.pendingClear != nil, $0.generation, $0.spellings, $0.journalCount, $0.journalOffset)
        }
        let inMemory = Array(pendingCopy.keys)
        let inMemoryNet = SuiteJournal.Net(removesAll: pendingClear, writes: pendingCopy.mapValues(\.value))
        let unappended = appender.unappended
        let sweep = state.withLock { state in
            defer { state.sweptTemporaryFiles = true }
            return !state.sweptTemporaryFiles
        }
        let attempt = try {
            () throws(DefaultsError)
                -> (Outcome, Resolved, [DefaultsStoreChange], UInt64?, ChangedKeys?, Bool, UInt64?)? in
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
            // Every write made so far, in order: the journal's, then this process's that could not be appended.
            // When every record past those this process has read is its own, `pending` holds what the journal
            // does, in order (this process's writes and its reads of the journal take turns under `appending`):
            // the usual rebuild, by a process that writes a suite alone, parses no record.
            let size = lock.journalSize
            let onlyOwn =
                SuiteFile.HeldLock.count(in: lock.descriptor) == journalCount
                && size - journalOffset == appender.appendedSinceLook && journalOffset <= size
            let journal =
                onlyOwn
                ? SuiteFile.HeldLock.JournalReading(count: journalCount, end: size)
                : lock.readJournal(allWritten: true)
            if journal.damaged {
                report(
                    .damagedFile,
                    key: nil,
                    "\(file.lockPath) holds bytes that are no whole record of a write (a write a full disk cut "
                        + "short, or another program's bytes); they are skipped"
                )
            }
            let net =
                onlyOwn
                ? inMemoryNet : Self.net(of: journal.writes, then: unappended, over: original, spellings: spellings)
            let pending = net.writes
            let pendingClear = net.removesAll
            let journalHeld = journal.end > SuiteJournal.headerSize || journal.cutShort || journal.damaged
            // The keys this write can change; `nil` when it can change any (a `removeAll`).
            let touchedBefore: [String]? = pendingClear ? nil : changeKeys.map { Array(pending.keys) + inMemory + $0 }
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
            if !readingValues, unchangedFile, !pendingClear, !spellings, case .xml(let xml)? = base,
                original.count >= pending.count + 2, !pending.keys.contains(where: KeySpelling.isMarked)
            {
                inPlace = xml
            } else {
                inPlace = nil
            }
            if pendingClear { values.removeAll() }
            var folded: [String] = []
            for (key, write) in pending where inPlace == nil {
                guard KeySpelling.isMarked(key), original[key] == nil, let spelling = KeySpelling.spelling(of: key)
                else {
                    values[key] = write
                    continue
                }
                // A spelling kept under a name of its own that another program has since removed from the file is
                // written as its key: it changes the entry of an equal spelling, as any key the file lacks does.
                values[spelling] = write
                folded.append(spelling)
            }
            let touched = touchedBefore.map { $0 + folded }
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
                    DefaultsStoreChange(key: $0.key, from: original[$0.key], to: $0.value)
                }
            } else {
                written = original.changes(to: values, amongKeys: touched)
            }
            if case .values = current, written.isEmpty {
                var count = journal.count
                if journalHeld {
                    // The file already holds what the journal does: only the journal is emptied, and counted, so
                    // that readers know the records they read are gone.
                    count = lock.countWrite()
                    lock.emptyJournal()
                }
                let version = try file.currentVersion()
                let resolved = Resolved(values: values, version: version, problem: nil, spellings: spellings)
                return (outcome, resolved, [], nil, changed, false, count)
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
            // After the file is in place: a crash in between leaves writes that the file already holds in the
            // journal, and applying them again changes nothing.
            if journalHeld { lock.emptyJournal() }
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
                written, writeCount, changed, inPlace != nil, writeCount
            )
        }()
        guard let (outcome, resolved, written, writeCount, changed, inPlace, journalCount) = attempt else { return nil }
        // Folded into the file, with the journal.
        appender.unappended.removeAll()
        appender.appendedSinceLook = 0
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
                state.journalCount = journalCount
                state.journalOffset = SuiteJournal.headerSize
                // Held here, a second reference would make the change in place copy the values after all.
                return inPlace ? [:] : state.stored
            }
        }
        // The values replaced are freed by the caller, after the locks.
        return (outcome, retired)
    }
}
#endif
