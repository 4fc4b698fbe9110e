// The library's own file store is Linux's; on Apple platforms values live in UserDefaults (see Package.swift).
#if !TYPED_DEFAULTS_FOUNDATION_STORAGE
import Foundation

// Reloading: the first load, the freshness checks that find another process's write, and the swap-in of what
// they read.
extension FileStore {
    // MARK: Reloading

    /// Whether the copy is due for a check that this read must start.
    ///
    /// Not when a check is set or underway, nor the one that follows the reads; either way the copy counts as
    /// checked from now, so that the reads after this one neither start a check nor ask again.
    func claimReload(_ state: inout State, now: UInt64) -> Bool {
        guard now &- state.lastCheck >= Self.freshnessInterval else { return false }
        state.lastCheck = now
        return !reloads.isPending && !readFollowing.isPending
    }

    /// Checks the file for another process's write in the background (the file watch calls this).
    func scheduleReload() {
        reloads.request(for: self)
    }

    /// Starts the check a stale read claimed, if it claimed one; in a child forked since the copy was last
    /// checked, first resumes the checks the parent had arranged.
    func startCheck(_ claimed: Bool) {
        BackgroundWork.resumeAfterFork()
        if claimed { reloads.request(for: self) }
    }

    /// Reads the file and the journal for the first time, if nothing has read or written them yet; a journal
    /// that holds writes (a process was killed before it rebuilt the file) is folded into the file soon after.
    func loadIfNeeded() {
        guard !state.withLock({ $0.loaded }) else { return }
        DefaultsDiagnostics.holding {
            loadLock.lock()
            defer { loadLock.unlock() }
            guard !state.withLock({ $0.loaded }) else { return }
            // A writer rebuilding the file holds the lock for milliseconds; one stuck longer leaves the journal out.
            let deadline = ContinuousClock.now + SuiteFile.lockWaitLimit
            var backoff = Backoff(first: .microseconds(500), limit: .milliseconds(20))
            while !look(firstLoad: ContinuousClock.now < deadline) { backoff.pause() }
            // Not by a program that only reads a suite it may not write.
            if state.withLock({ !$0.pending.isEmpty || $0.pendingClear != nil }), access(file.directory, W_OK) == 0 {
                folds.request(for: self)
            }
        }
    }

    /// Reads the file again if it changed since it was last read or written, and the journal's new records, and
    /// announces what changed.
    ///
    /// Parsing happens outside the state's lock, so readers go on with the copy they have meanwhile.
    func reloadNow() {
        DefaultsDiagnostics.holding {
            // A check already running when the exit flush starts finishes first (the flush waits for the file
            // lock); one that would start after it does not start.
            guard !BackgroundWork.isStopped else { return }
            var wasRead = false
            defer { followReads(wasRead) }
            state.withLock { state in
                state.checks += 1
                wasRead = state.readSinceCheck
                state.readSinceCheck = false
            }
            // A writer rebuilding the file holds the lock: the check is tried again a little later.
            if !look(firstLoad: false) { reloads.request(for: self, within: .milliseconds(20)) }
        }
    }

    /// Reads what changed in the file and the journal since the last look, under the suite's lock shared (no
    /// writer rebuilds the file meanwhile), and puts it in place; `false` when a writer held the lock, or a write
    /// of this process made the lock file meanwhile: the look is to be made again.
    ///
    /// With `firstLoad: false` as the last attempt of a first load, the file is read without the journal.
    private func look(firstLoad: Bool) -> Bool {
        fileLock.lock()
        defer { fileLock.unlock() }
        let (loaded, known, base, count, offset) = state.withLock { state in
            // A file that could not be read is tried again even if unchanged (its permissions may be).
            let known = state.loaded && state.problem?.isAboutContents ?? true ? state.version : nil
            return (
                state.loaded, known, state.loaded ? StoredBase(values: state.stored, serial: state.storedSerial) : nil,
                state.journalCount, state.journalOffset
            )
        }
        let lookedAt: Bool?
        do throws(DefaultsError) {
            lookedAt = try file.withSharedLock { lock throws(DefaultsError) -> Bool in
                let currentCount = lock.flatMap { SuiteFile.HeldLock.count(in: $0.descriptor) }
                // This process's own writes set the version under the file lock, so they are never read back.
                if loaded, let known, try file.currentVersion() == known, currentCount == count {
                    if let lock { takeTail(lock, from: offset) }
                    return true
                }
                let contents = try readFile()
                let reading = Result { () throws(DefaultsError) in try resolve(contents, mustPreserve: false) }
                // What changed is worked out here, outside the lock that readers take.
                let changed = (try? reading.get())
                    .flatMap { resolved in
                        base.map {
                            ChangedKeys(keys: $0.values.keysDiffering(from: resolved.values), serial: $0.serial)
                        }
                    }
                // The journal is read with no write of this process between memory and the journal.
                return appending.withLock { appender in
                    // No lock file means no journal, unless a write of this process made one since it was looked
                    // for: then the look is made again.
                    if lock == nil, access(file.lockPath, F_OK) == 0 { return false }
                    let journal =
                        lock?.readJournal() ?? SuiteFile.HeldLock.JournalReading(end: SuiteJournal.headerSize)
                    appender.appendedSinceLook = 0
                    swapIn(
                        reading,
                        firstLoad: !loaded,
                        writeCount: journal.count,
                        changed: changed,
                        journal: (journal, appender.unappended)
                    )
                    return true
                }
            }
        } catch {
            swapIn(.failure(error), firstLoad: !loaded)
            return true
        }
        if lookedAt == true { return true }
        guard lookedAt == nil, !loaded, !firstLoad else { return false }
        // A first load that could not have the lock in time reads the file alone.
        do throws(DefaultsError) {
            let contents = try readFile()
            swapIn(Result { () throws(DefaultsError) in try resolve(contents, mustPreserve: false) }, firstLoad: true)
        } catch {
            swapIn(.failure(error), firstLoad: true)
        }
        return true
    }

    /// Puts the journal's records past `offset` (those read before) in place, under this process's writes that
    /// are not appended yet; call holding the suite's lock shared.
    private func takeTail(_ lock: SuiteFile.HeldLock, from offset: Int) {
        // Most of it is read and parsed before `appending` is taken, so that this process's writes do not wait for
        // that; then what was appended since is read with no write of this process between memory and the journal.
        // Past `offset`, only this process's own records: `pending` holds them already.
        let onlyOwn = appending.withLock { appender in
            let size = lock.journalSize
            guard size >= offset, size - offset == appender.appendedSinceLook else { return false }
            appender.appendedSinceLook = 0
            state.withLock { $0.journalOffset = size }
            return true
        }
        if onlyOwn { return }
        let first = lock.readJournal(from: offset)
        appending.withLock { appender in
            let rest = lock.readJournal(from: first.end)
            appender.appendedSinceLook = 0
            guard rest.end != offset else { return }
            let tail = first.writes + rest.writes
            // Made outside the lock readers take, unless the file holds spellings of one key (rare), which name
            // keys by what is stored.
            let (stored, spellings) = state.withLock { $0.spellings ? ($0.stored, true) : ([:], false) }
            let net = Self.net(of: tail, then: appender.unappended, over: stored, spellings: spellings)
            withState { state in
                let keys = net.removesAll ? nil : Array(net.writes.keys)
                announcingChanges(&state, onlyKeys: keys) { state in Self.overlay(net, on: &state, replacing: false) }
                state.journalOffset = rest.end
            }
        }
    }

    /// Lays `net` over the values in memory, as writes the file does not hold yet: on top of those already
    /// there, or in their place.
    static func overlay(_ net: SuiteJournal.Net, on state: inout State, replacing: Bool) {
        if replacing || net.removesAll {
            state.pending.removeAll()
            state.pendingClear = net.removesAll ? state.generation : nil
        }
        for (name, value) in net.writes {
            state.pending[name] = PendingWrite(value: value, generation: state.generation)
        }
        if !state.spellings, net.writes.keys.contains(where: KeySpelling.isMarked) { state.spellings = true }
    }

    /// Sets the next check to run 50 ms from now if reads came just before this one began (`wasRead`) or
    /// since, so that a steady stream of reads never wakes a thread itself.
    ///
    /// A read that finds the copy stale could start the check, but waking a thread from the reading thread lets
    /// the scheduler hand that thread's core to the woken one in the middle of the read: on a busy machine
    /// that read then waits milliseconds for a core. A timer starts the check instead, for as long as reads
    /// keep coming, and no read claims one while it is set (see ``claimReload(_:now:)``); once a whole interval
    /// passes without a read, the timer stops, and the next stale read starts a check again.
    func followReads(_ wasRead: Bool) {
        guard wasRead || state.withLock({ $0.readSinceCheck }) else { return }
        readFollowing.request(for: self, within: .nanoseconds(Self.freshnessInterval))
    }

    /// The check ``followReads(_:)`` sets: runs if reads came since the last check began and no other check is
    /// set or underway, and claims the copy as a read would.
    func checkAfterReads() {
        let due = state.withLock { state in
            guard state.readSinceCheck, !reloads.isPending else { return false }
            state.lastCheck = Self.now()
            return true
        }
        if due { reloadNow() }
    }

    /// A copy of `State.stored`, taken to be compared outside the lock.
    struct StoredBase {
        var values: [String: PropertyListValue]
        var serial: UInt64
    }

    /// The keys whose stored values a change of `stored` touches, worked out outside the lock from the copy
    /// with `serial`; they hold only while `stored` is still that copy.
    struct ChangedKeys {
        var keys: [String]
        var serial: UInt64

        /// The keys, if `state.stored` is still the copy they were worked out from; else `nil`: compare all.
        func keys(for state: State) -> [String]? {
            state.storedSerial == serial ? keys : nil
        }
    }

    /// What a read of the file resolved to.
    struct Resolved {
        var values: [String: PropertyListValue]
        var version: SuiteFile.Version?
        var problem: DefaultsError?
        /// When these values were known good, if that changed.
        var goodSince: timespec?
        /// Whether the values keep a spelling under a name from ``KeySpelling``.
        var spellings = false
    }

    /// Puts a reading of the file in place of the copy, announcing what changed; a reading that failed keeps
    /// the copy and notes why, once.
    ///
    /// A first load that finds the copy already loaded (a write got there first, with a newer file) changes
    /// nothing.
    func swapIn(
        _ reading: Result<Resolved, DefaultsError>,
        firstLoad: Bool = false,
        writeCount: UInt64? = nil,
        changed: ChangedKeys? = nil,
        journal: (reading: SuiteFile.HeldLock.JournalReading, unappended: [[UInt8]])? = nil
    ) {
        // The journal's writes replace what `pending` held of it, under this process's not appended yet; worked
        // out here, outside the lock that readers take.
        let net = journal.flatMap { journal in
            (try? reading.get())
                .map {
                    Self.net(
                        of: journal.reading.writes,
                        then: journal.unappended,
                        over: $0.values,
                        spellings: $0.spellings
                    )
                }
        }
        let retired = withState { state -> [String: PropertyListValue] in
            if firstLoad, state.loaded { return [:] }
            defer {
                state.loaded = true
                state.lastCheck = Self.now()
            }
            switch reading {
            case .success(let resolved):
                if resolved.problem == nil { checkForRevert(resolved.values, writeCount: writeCount, &state) }
                var keys = changed?.keys(for: state)
                if let net {
                    keys =
                        net.removesAll || state.pendingClear != nil
                        ? nil : keys.map { $0 + net.writes.keys + state.pending.keys }
                }
                return announcingChanges(&state, onlyKeys: keys) { state in
                    defer { state.stored = resolved.values }
                    if let journal = journal?.reading, let net {
                        Self.overlay(net, on: &state, replacing: true)
                        state.journalCount = journal.count
                        state.journalOffset = journal.end
                    }
                    state.version = resolved.version
                    state.spellings = resolved.spellings || state.pending.keys.contains(where: KeySpelling.isMarked)
                    state.problem = resolved.problem
                    if let since = resolved.goodSince { state.goodSince = since }
                    return state.stored
                }
            case .failure(let error):
                // Unreadable or unsafe: keep what was read before, and say so once.
                if state.problem != error {
                    report(error.diagnosticKind, key: nil, "\(error.description); reading defaults and earlier values")
                }
                state.problem = error
                return [:]
            }
        }
        // The values replaced are freed here, after the lock: freeing a large suite's takes milliseconds.
        _ = retired
    }
}
#endif
