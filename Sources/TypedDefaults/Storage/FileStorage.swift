import Dispatch
import Foundation

/// A suite stored in its own property-list file, shared by every adapter on that file in the process.
///
/// Reads come from an in-memory copy of the file, refreshed when the file changes (checked at most every
/// ``freshnessInterval``), so another process's flushed writes show up within that bound. Writes go to the
/// copy at once and to the file when flushed: under the suite's file lock, the current file is read,
/// this process's changes are applied on top key by key, and the result replaces the file atomically.
/// Nothing is dropped because it equals a stale cached value (Foundation's trap), and a write that fails is
/// kept and retried.
final class FileStorage: DefaultsStorage {
    /// How stale a read may be: the file is checked for a newer version at most this often.
    static let freshnessInterval: UInt64 = 50_000_000

    let suiteName: String
    let file: SuiteFile
    let changes: ChangeHub
    private let state: Locked<State>
    /// Serializes this process's flushes and read-modify-writes; the file lock does so across processes.
    private let writeLock = NSLock()
    private let flushQueue: DispatchQueue
    /// Writes the backup copy shortly after a write returns, off the writer's path.
    private let backupQueue: DispatchQueue

    private struct PendingWrite: Sendable {
        var value: PropertyListValue?
        var generation: UInt64
    }

    private struct State: Sendable {
        /// The file's values, each with the value last decoded from it by a costly bridge.
        var stored: [String: StoredSlot] = [:]
        var version: SuiteFile.Version?
        var loaded = false
        var lastCheck: UInt64 = 0
        var pending: [String: PendingWrite] = [:]
        /// The generation of a pending `removeAll`, which the next flush applies before `pending`.
        var pendingClear: UInt64?
        var generation: UInt64 = 0
        var flushScheduled = false
        var retryDelay: Duration = .milliseconds(250)
        /// Why the file could not be used at the last look, for `checkFile()`.
        var problem: DefaultsError?
        /// The damaged version already preserved, so it is copied once.
        var preservedVersion: SuiteFile.Version?
        var preservedPath: String?
        /// Whether this process has cleared temporary files left by killed writers.
        var sweptTemporaryFiles = false
        /// How many times this storage wrote the file.
        var fileWrites = 0
        /// The last version written and its bytes, for the backup copy; set while a backup is scheduled.
        var pendingBackup: (data: Data, version: SuiteFile.Version)?
        /// The changes made under the lock, announced before it is released (so in order).
        var announcements: [StoredChange] = []
        /// The file watch that reports other processes' writes while anyone observes.
        var watch: DirectoryWatcher.Registration?
        /// Diagnostics to deliver once the lock is released: a handler may itself read this suite.
        var outbox: [DefaultsDiagnostic] = []
    }

    /// Runs `body` on the state under its lock, then delivers the diagnostics it noted.
    private func withState<Result, Failure>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let (result, diagnostics) = try state.withLock { state throws(Failure) in
            let result = try body(&state)
            if !state.announcements.isEmpty {
                changes.publish(state.announcements)
                state.announcements.removeAll()
            }
            defer { state.outbox.removeAll() }
            return (result, state.outbox)
        }
        for diagnostic in diagnostics { DefaultsDiagnostics.report(diagnostic, oncePerProcess: false) }
        return result
    }

    private init(file: SuiteFile, suiteName: String) {
        self.file = file
        self.suiteName = suiteName
        let path = file.path
        self.changes = ChangeHub { active in FileStorage.watch(path: path, active) }
        self.state = Locked(State())
        self.flushQueue = DispatchQueue(label: "TypedDefaults.flush." + suiteName)
        self.backupQueue = DispatchQueue(label: "TypedDefaults.backup." + suiteName)
    }

    // MARK: One storage per file

    private static let registry = Locked<[String: FileStorage]>([:])

    /// The storage for the suite `suiteName` in `directory`, shared by every adapter in the process.
    static func shared(directory: String, suiteName: String, displayName: String) -> FileStorage {
        let file = SuiteFile(directory: directory, suiteName: suiteName)
        return registry.withLock { storages in
            if let existing = storages[file.path] { return existing }
            let storage = FileStorage(file: file, suiteName: displayName)
            storages[file.path] = storage
            _ = exitFlush
            return storage
        }
    }

    /// Starts or stops watching the file at `path` for other processes' writes.
    private static func watch(path: String, _ active: Bool) {
        guard let storage = registry.withLock({ $0[path] }) else { return }
        if active {
            // A first look now gives later changes a baseline to be told apart from. The directory must exist
            // to be watched.
            storage.refreshNow()
            try? storage.file.createDirectory()
            let registration = DirectoryWatcher.shared.watch(
                directory: storage.file.directory,
                fileName: storage.file.fileName
            ) { [path] in registry.withLock { $0[path] }?.refreshNow() }
            storage.withState { state in state.watch = registration }
        } else {
            let registration = storage.withState { state in
                defer { state.watch = nil }
                return state.watch
            }
            if let registration { DirectoryWatcher.shared.cancel(registration) }
        }
    }

    /// Reads the file again if it changed, now, and announces what changed.
    func refreshNow() {
        withState { state in
            state.lastCheck = 0
            refreshIfStale(&state)
        }
    }

    /// Foundation writes nothing at exit; TypedDefaults flushes every suite when the process exits normally,
    /// and when SIGTERM, SIGINT or SIGHUP would end it by their default action (``ShutdownSignals``).
    private static let exitFlush: Void = {
        atexit { FileStorage.flushAllBeforeExit() }
        ShutdownSignals.install()
    }()

    /// Flushes every suite and waits for its backup copy; returns the first failure.
    ///
    /// The other failures are reported; at exit, every one is, as the process ends without those writes.
    /// `starting` hears each suite's name before it is flushed.
    @discardableResult
    static func flushAllBeforeExit(atExit: Bool = true, starting: (String) -> Void = { _ in }) -> DefaultsError? {
        var first: DefaultsError?
        for storage in registry.withLock({ Array($0.values) }) {
            starting(storage.suiteName)
            do {
                try storage.flush()
            } catch {
                if atExit {
                    storage.report(.writeFailed, key: nil, "\(error.description); pending writes are lost at exit")
                } else if first != nil {
                    storage.report(.writeFailed, key: nil, "\(error.description); the writes are kept")
                }
                first = first ?? error
            }
            storage.finishBackgroundWork()
        }
        return first
    }

    /// How many times this storage wrote its file, for tests and benchmarks.
    var fileWriteCount: Int { withState { $0.fileWrites } }

    // MARK: Reading

    func value(forKey key: String) -> PropertyListValue? {
        valueForDecoding(forKey: key).value
    }

    func valueForDecoding(forKey key: String) -> (value: PropertyListValue?, decoded: AnyDecodedValue?) {
        // The hot path: the copy is fresh enough, so a lookup under the lock is all a read costs.
        let now = Self.now()
        let fresh = state.withLock { state in
            state.loaded && now &- state.lastCheck < Self.freshnessInterval ? Self.lookup(key, in: state) : nil
        }
        if let fresh { return fresh }
        return withState { state in
            refreshIfStale(&state)
            return Self.lookup(key, in: state)
        }
    }

    func keepDecoded(_ decoded: AnyDecodedValue, forKey key: String, decodedFrom source: PropertyListValue) {
        state.withLock { state in
            guard state.pending[key] == nil, state.pendingClear == nil, state.stored[key]?.value == source else {
                return
            }
            state.stored[key]?.decoded = decoded
        }
    }

    /// What a read of `key` returns: a pending write's value, or the file's with its decoded value, if kept.
    private static func lookup(_ key: String, in state: State) -> (value: PropertyListValue?, decoded: AnyDecodedValue?)
    {
        if !state.pending.isEmpty, let pending = state.pending[key] { return (pending.value, nil) }
        if state.pendingClear != nil { return (nil, nil) }
        let slot = state.stored[key]
        return (slot?.value, slot?.decoded)
    }

    /// A monotonic clock cheap enough to read on every read: its resolution (a few milliseconds) is far finer
    /// than the freshness interval.
    private static func now() -> UInt64 {
        #if os(Linux)
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
        #else
        return DispatchTime.now().uptimeNanoseconds
        #endif
    }

    func hasValue(forKey key: String) -> Bool { value(forKey: key) != nil }

    func allValues() -> [String: PropertyListValue] {
        withState { state in
            refreshIfStale(&state)
            return effectiveValues(state)
        }
    }

    func modifyAll(
        _ transform: (inout [String: PropertyListValue]) throws(DefaultsError) -> Void
    ) throws(DefaultsError) {
        try write(transform)
    }

    func checkFile() throws(DefaultsError) {
        let problem = withState { state in
            state.lastCheck = 0
            refreshIfStale(&state)
            return state.problem
        }
        if let problem { throw problem }
    }

    /// What reads return for every key: the file's values with this process's pending writes on top.
    private func effectiveValues(_ state: State) -> [String: PropertyListValue] {
        var values = state.pendingClear == nil ? state.stored.mapValues(\.value) : [:]
        for (key, write) in state.pending { values[key] = write.value }
        return values
    }

    /// Runs `mutate`, and queues an announcement of every value it changed (only when someone observes, and
    /// not inside `withoutPropagation`).
    private func announcingChanges<Result, Failure>(
        _ state: inout State,
        _ mutate: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        guard changes.hasObservers, !Propagation.isSuppressed else { return try mutate(&state) }
        let before = effectiveValues(state)
        let result = try mutate(&state)
        let after = effectiveValues(state)
        for key in Set(before.keys).union(after.keys) where before[key] != after[key] {
            state.announcements.append(StoredChange(key: key, oldValue: before[key], newValue: after[key]))
        }
        return result
    }

    /// Reloads the file if it changed since it was last read, at most every ``freshnessInterval``.
    private func refreshIfStale(_ state: inout State) {
        let now = Self.now()
        if state.loaded, now &- state.lastCheck < Self.freshnessInterval { return }
        state.lastCheck = now
        do {
            if state.loaded, state.problem == nil, try file.currentVersion() == state.version { return }
            let contents = try file.read()
            try announcingChanges(&state) { state throws(DefaultsError) in
                let (values, version) = try resolve(contents, &state)
                state.stored = StoredSlot.slots(values, reusing: state.stored)
                state.version = version
            }
        } catch {
            // Unreadable or unsafe: keep what was read before, and say so once.
            if state.problem != error {
                note(error.diagnosticKind, "\(error.description); reading defaults and earlier values", in: &state)
            }
            state.problem = error
        }
        state.loaded = true
    }

    /// The values a read of the file stands for.
    ///
    /// A damaged file is preserved beside itself (once) and stands for the last good copy: the backup, or
    /// what this process had read, or nothing.
    private func resolve(
        _ contents: SuiteFile.Contents,
        _ state: inout State
    ) throws(DefaultsError) -> ([String: PropertyListValue], SuiteFile.Version?) {
        switch contents {
        case .missing:
            state.problem = nil
            return ([:], nil)
        case .values(let values, let version):
            state.problem = nil
            return (values, version)
        case .damaged(let data, let version, let reason):
            if state.preservedVersion != version {
                let preserved = try file.preserveDamaged(data)
                state.preservedVersion = version
                state.preservedPath = preserved
                let recovered = file.readBackup() != nil
                note(
                    .damagedFile,
                    "\(file.path) is damaged (\(reason)); preserved it as \(preserved) and "
                        + (recovered ? "recovered the last good copy" : "read defaults until the next write"),
                    in: &state
                )
            }
            state.problem = .damagedFile(path: file.path, preservedAt: state.preservedPath ?? "", reason: reason)
            // The last good copy: the backup, else what this process read before the damage.
            return (file.readBackup() ?? state.stored.mapValues(\.value), version)
        }
    }

    // MARK: Writing

    func setValue(_ value: PropertyListValue?, forKey key: String) {
        withState { state in
            if changes.hasObservers, !Propagation.isSuppressed {
                let old =
                    state.pending[key].map(\.value) ?? (state.pendingClear == nil ? state.stored[key]?.value : nil)
                if old != value { state.announcements.append(StoredChange(key: key, oldValue: old, newValue: value)) }
            }
            state.generation += 1
            state.pending[key] = PendingWrite(value: value, generation: state.generation)
        }
    }

    func removeAll() {
        withState { state in
            announcingChanges(&state) { state in
                state.generation += 1
                state.pending.removeAll()
                state.pendingClear = state.generation
            }
        }
    }

    func flush() throws(DefaultsError) {
        guard withState({ !$0.pending.isEmpty || $0.pendingClear != nil }) else { return }
        try write { _ in }
    }

    func modify(
        _ key: String,
        _ transform: (PropertyListValue?) throws(DefaultsError) -> PropertyListValue?
    ) throws(DefaultsError) {
        try write { values throws(DefaultsError) in values[key] = try transform(values[key]) }
    }

    /// Applies the pending writes and then `change` to the file, under the file lock.
    ///
    /// The file is read, changed and written back whole; it is left alone when nothing changed and it is
    /// intact.
    private func write(
        _ change: (inout [String: PropertyListValue]) throws(DefaultsError) -> Void
    ) throws(DefaultsError) {
        writeLock.lock()
        defer { writeLock.unlock() }
        let (pending, pendingClear, generation) = withState { ($0.pending, $0.pendingClear, $0.generation) }
        var unchanged = pending.isEmpty && pendingClear == nil
        let sweep = withState { state in
            defer { state.sweptTemporaryFiles = true }
            return !state.sweptTemporaryFiles
        }
        let (values, version) = try file.withExclusiveLock { () throws(DefaultsError) in
            if sweep { file.removeAbandonedTemporaryFiles() }
            // The file as this process last read or wrote it needs no second reading: only its version is
            // checked, under the lock, so another writer's change is never missed.
            let known = withState { state in
                state.problem == nil && state.loaded ? state.version.map { ($0, state.stored.mapValues(\.value)) } : nil
            }
            let current: SuiteFile.Contents
            if let known, try file.currentVersion() == known.0 {
                current = .values(known.1, known.0)
            } else {
                current = try file.read()
            }
            var values = try withState { state throws(DefaultsError) in try resolve(current, &state).0 }
            if pendingClear != nil { values.removeAll() }
            for (key, write) in pending { values[key] = write.value }
            let before = values
            try change(&values)
            if values != before { unchanged = false }
            if unchanged, case .values = current { return (values, try file.currentVersion()) }
            let (version, data) = try file.write(values)
            let scheduleBackup = withState { state in
                state.fileWrites += 1
                defer { state.pendingBackup = (data, version) }
                return state.pendingBackup == nil
            }
            // A little later, so that a burst of immediate writes makes one copy, not one each.
            if scheduleBackup { backupQueue.asyncAfter(deadline: .now() + 0.05) { [self] in writeBackup() } }
            return (values, version)
        }
        withState { state in
            // Announces what other processes changed in the file and what `modify` changed; this process's
            // own pending writes were announced when they were made.
            announcingChanges(&state) { state in
                state.stored = StoredSlot.slots(values, reusing: state.stored)
                state.version = version
                state.loaded = true
                state.problem = nil
                state.lastCheck = Self.now()
                state.pending = state.pending.filter { $0.value.generation > generation }
                if let clear = state.pendingClear, clear <= generation { state.pendingClear = nil }
            }
        }
    }

    /// Writes the latest backup copy, under both locks so it never overwrites a newer writer's copy.
    private func writeBackup() {
        writeLock.lock()
        defer { writeLock.unlock() }
        guard
            let backup = withState({ state in
                defer { state.pendingBackup = nil }
                return state.pendingBackup
            })
        else { return }
        try? file.withExclusiveLock { file.writeBackup(backup.data, of: backup.version) }
    }

    func finishBackgroundWork() {
        writeBackup()
    }

    func scheduleFlush(within delay: Duration) {
        let schedule = withState { state in
            if state.flushScheduled { return false }
            state.flushScheduled = true
            return true
        }
        guard schedule else { return }
        flushQueue.asyncAfter(deadline: .now() + delay.timeInterval) { [self] in
            withState { $0.flushScheduled = false }
            do throws(DefaultsError) {
                try flush()
                withState { $0.retryDelay = .milliseconds(250) }
            } catch {
                let retry = withState { state in
                    defer { state.retryDelay = min(state.retryDelay * 2, .seconds(30)) }
                    return state.retryDelay
                }
                report(.writeFailed, key: nil, "\(error.description); trying again in \(retry)")
                scheduleFlush(within: retry)
            }
        }
    }

    private func note(_ kind: DefaultsDiagnostic.Kind, _ message: String, in state: inout State) {
        state.outbox.append(DefaultsDiagnostic(kind: kind, suite: suiteName, key: nil, message: message))
    }

    private func report(_ kind: DefaultsDiagnostic.Kind, key: String?, _ message: String) {
        DefaultsDiagnostics.report(
            DefaultsDiagnostic(kind: kind, suite: suiteName, key: key, message: message),
            oncePerProcess: false
        )
    }
}

extension DefaultsError {
    fileprivate var diagnosticKind: DefaultsDiagnostic.Kind {
        if case .damagedFile = self { .damagedFile } else { .unreadableFile }
    }
}

extension Duration {
    /// Seconds, for Dispatch.
    fileprivate var timeInterval: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
