// The library's own file store is Linux's; on Apple platforms values live in UserDefaults (see Package.swift).
#if !TYPED_DEFAULTS_FOUNDATION_STORAGE
import Dispatch
import Foundation

/// A suite stored in its own property-list file, shared safely with every other process that uses it.
///
/// This is the store behind `DefaultsAdapter(suiteName:)` and ``Defaults``; one instance serves every
/// adapter on the same file in the process.
///
/// Reads come from an in-memory copy of the file and never wait for the file: a copy older than
/// `freshnessInterval` (50 ms) is checked in the background, which reads and parses a changed file outside the
/// lock readers take and then swaps the new copy in. The first stale read after a quiet interval starts the
/// check; while reads keep coming, a timer starts the next ones. Writes go to the copy at once and to the
/// file when flushed: under the suite's file lock, the current file is read, this process's changes are
/// applied on top key by key, and the result replaces the file atomically. Nothing is dropped because it
/// equals a stale cached value (Foundation's trap), and a write that fails is kept and retried. Both ends cost
/// what changed, not the size of the suite: a file another process changed is parsed only where its bytes
/// differ from the version this process knows, and a write copies the bytes of the entries it leaves alone
/// (see `SuiteImage`).
///
/// No user code runs while any lock here is held: diagnostics are delivered after, observers are called on
/// their own queues, and `modify` runs its transform outside the locks (see `ReadModifyWrite`).
///
/// ## Usage
/// ```swift
/// let store = try FileStore.suite("com.example.app")
/// print(store.fileURL?.path ?? "")   // ~/.config/com.example.app.plist
/// let settings = DefaultsAdapter(store: store, keyStore: DefaultsKeys())
/// ```
public final class FileStore: DefaultsStore {
    /// How stale a read may be: the file is checked for a newer version at most this often.
    static let freshnessInterval: UInt64 = 50_000_000

    /// The suite's name, or `"standard"`.
    public let name: String
    let file: SuiteFile
    /// Announces this process's changes, and other processes' while anyone observes (a file watch sees them).
    public let changes: DefaultsStoreChanges
    let state: Locked<State>
    /// Serializes this process's work on the file: writes, reloads and backups.
    ///
    /// The file lock does so across processes. Readers never take it.
    let fileLock = ShortLock()
    /// Serializes the first read of the file, so that concurrent first readers parse it once.
    let loadLock = ShortLock()
    /// The file watch that reports other processes' writes while anyone observes.
    let watch = Locked<DirectoryWatcher.Registration?>(nil)
    /// The file as this process last wrote it, and its version.
    ///
    /// The next write of a few keys changes a copy of its bytes rather than writing every value again. Used
    /// under `fileLock`.
    let image = Locked<(image: SuiteImage, version: SuiteFile.Version)?>(nil)

    struct PendingWrite: Sendable {
        var value: PropertyListValue?
        var generation: UInt64
    }

    struct State: Sendable {
        /// The file's values, as last read or written.
        var stored: [String: PropertyListValue] = [:] {
            didSet {
                storedSerial &+= 1
                readSerial &+= 1
            }
        }
        /// Counts the replacements of `stored`, so that work done on a copy outside the lock can tell whether the
        /// copy is still current when it comes back.
        var storedSerial: UInt64 = 0
        var version: SuiteFile.Version?
        var loaded = false
        var lastCheck: UInt64 = 0
        var reloadScheduled = false
        /// Whether a read came since the last check began, and whether the next check is already set to run
        /// 50 ms after the last one: see ``followReads(_:)``.
        var readSinceCheck = false
        var followUpScheduled = false
        var pending: [String: PendingWrite] = [:] {
            didSet { readSerial &+= 1 }
        }
        /// The generation of a pending `removeAll`, which the next flush applies before `pending`.
        var pendingClear: UInt64? {
            didSet { readSerial &+= 1 }
        }
        /// Counts the changes of what reads return (`stored`, `pending`, `pendingClear`), so that an answer
        /// in `recentReads` is trusted only while it is current.
        var readSerial: UInt64 = 0
        var recentReads = RecentLookups<ReadPlace>()
        var generation: UInt64 = 0
        /// Why the file could not be used at the last look, for `checkFile()`.
        var problem: DefaultsError?
        /// The damaged version already preserved, so it is copied once.
        var preservedVersion: SuiteFile.Version?
        var preservedPath: String?
        /// The damaged version that could not be preserved (a full disk, say): reads do not try again for
        /// it; a write always does, and never replaces the file before it succeeds.
        var unpreservedVersion: SuiteFile.Version?
        /// Whether this process has cleared temporary files left by killed writers.
        var sweptTemporaryFiles = false
        /// How many times this storage wrote the file, and read it.
        var fileWrites = 0
        var fileReads = 0
        /// How many checks for another process's write ran, and how many of them a read started itself.
        var checks = 0
        var checksStartedByReads = 0
        /// The last version written and its bytes, for the backup copy; set while a backup is scheduled.
        var pendingBackup: (data: [UInt8], version: SuiteFile.Version)?
        /// The keys this process's last file write changed, to tell when a writer that takes no lock reverts
        /// them, and the write count it left in the lock file.
        var lastWritten: [String: DefaultsStoreChange] = [:]
        var lastWriteCount: UInt64?
        /// When the values in `stored` were last known good (the modification time of the file they were
        /// read from or written as, or of the backup they came from), to prefer a newer backup after damage.
        var goodSince: timespec?
        /// The changes made under the lock, announced before it is released (so in order).
        var announcements: [DefaultsStoreChange] = []
        /// Whether `stored` or `pending` may keep a value under a name from ``KeySpelling``.
        ///
        /// True when the file holds two spellings of an equal key, or a key starting with `U+FFFF` (which only
        /// a file can hold: no write takes one); reads and writes then name their keys (see ``name(for:in:)``).
        var spellings = false {
            didSet { readSerial &+= 1 }
        }
    }

    /// Runs `body` on the state under its lock, and announces the changes it queued before releasing it.
    @inline(__always)
    func withState<Result, Failure>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try state.withLock { state throws(Failure) in
            let result = try body(&state)
            if !state.announcements.isEmpty {
                changes.publish(Self.bySpelling(state.announcements))
                state.announcements.removeAll(keepingCapacity: true)
            }
            return result
        }
    }

    /// `changes` keyed by spelling: observers hear of a spelling by its key, never by the name it is kept
    /// under (see ``KeySpelling``).
    @inline(never)
    static func bySpelling(_ changes: [DefaultsStoreChange]) -> [DefaultsStoreChange] {
        guard changes.contains(where: { KeySpelling.isMarked($0.key) }) else { return changes }
        return changes.map { change in
            KeySpelling.spelling(of: change.key)
                .map { DefaultsStoreChange(key: $0, oldValue: change.oldValue, newValue: change.newValue) } ?? change
        }
    }

    init(file: SuiteFile, name: String) {
        self.file = file
        self.name = name
        let path = file.path
        self.changes = DefaultsStoreChanges { FileStore.registered(at: path)?.observersChanged() }
        self.state = Locked(State())
    }

    deinit {
        if let registration = watch.withLock({ $0 }) { DirectoryWatcher.shared.cancel(registration) }
        let path = file.path
        // A newer storage for the path is handed out of the lock before it is released: its own deinit takes
        // the registry's lock too.
        let newer = Self.registry.withLock { storages -> FileStore? in
            let newer = storages[path]?.storage
            if newer == nil { storages[path] = nil }
            return newer
        }
        _ = newer
    }

    /// The suite's property-list file.
    public var fileURL: URL? { URL(fileURLWithPath: file.path) }

    /// How many times this store wrote its file, for tests and benchmarks.
    @_spi(Instrumentation)
    public var fileWriteCount: Int { state.withLock { $0.fileWrites } }

    /// How many times this store read and parsed its file, for tests.
    @_spi(Instrumentation)
    public var fileReadCount: Int { state.withLock { $0.fileReads } }

    /// Reads the file, counting the reading; by what changed since the file's image, when there is one.
    func readFile() throws(DefaultsError) -> SuiteFile.Contents {
        defer { state.withLock { $0.fileReads += 1 } }
        let contents = try file.readSettled(basis: readingBasis())
        if case .values(_, let version, let newImage?) = contents { keepImage(newImage, of: version) }
        return contents
    }

    /// Sets the file's image; the one it replaces is freed after the lock, since freeing a large file's takes
    /// hundreds of microseconds.
    func keepImage(_ newImage: SuiteImage, of version: SuiteFile.Version) {
        let replaced = image.withLock { image in
            defer { image = (newImage, version) }
            return image
        }
        _ = replaced
    }

    /// The file's image and the values it holds, when this process holds both for the same version.
    ///
    /// The image may be newer than the values (it is set before them), never the other way round, so the
    /// two belong together exactly when their versions match.
    func readingBasis() -> SuiteFile.Basis? {
        guard let (image, version) = image.withLock({ $0 }), let xml = image.xml else { return nil }
        return state.withLock { state in
            state.loaded && state.problem == nil && state.version == version ? (xml, state.stored) : nil
        }
    }

    // MARK: Reading

    /// The value for `key`, from the copy of the file in memory; never waits for the file.
    public func value(forKey key: String) -> PropertyListValue? {
        // The hot path: a lookup under the lock is all a read costs. A copy older than the freshness interval
        // is checked in the background, and this read returns the copy it has.
        let now = Self.now()
        var stale = false
        var reload = false
        let found = state.withLock { state -> PropertyListValue?? in
            guard state.loaded else { return .none }
            state.readSinceCheck = true
            if now &- state.lastCheck >= Self.freshnessInterval {
                stale = true
                if Self.claimReload(&state, now: now) {
                    reload = true
                    state.checksStartedByReads += 1
                }
            }
            return .some(Self.read(key, in: &state))
        }
        if stale { startCheck(reload) }
        if let found { return found }
        loadIfNeeded()
        return state.withLock { Self.lookup(Self.name(for: key, in: $0), in: $0) }
    }

    /// Whether the copy is due for a check, and no check is underway or set to follow; marks one as underway.
    static func claimReload(_ state: inout State, now: UInt64) -> Bool {
        guard now &- state.lastCheck >= freshnessInterval, !state.reloadScheduled, !state.followUpScheduled else {
            return false
        }
        state.lastCheck = now
        state.reloadScheduled = true
        return true
    }

    /// Checks the file for another process's write in the background (the file watch calls this).
    func scheduleReload() {
        let claimed = state.withLock { state in
            defer { state.reloadScheduled = true }
            return !state.reloadScheduled
        }
        if claimed { BackgroundWork.run { [self] in reloadNow() } }
    }

    /// Starts the check a stale read claimed, if it claimed one; in a child forked since the copy was last
    /// checked, first resumes the checks the parent had arranged.
    func startCheck(_ claimed: Bool) {
        BackgroundWork.resumeAfterFork()
        if claimed { BackgroundWork.run { [self] in reloadNow() } }
    }

    /// Where a read finds its value; valid while the state's `readSerial` is unchanged.
    ///
    /// Places rather than values, so that what `recentReads` remembers never keeps a value alive.
    enum ReadPlace: Sendable {
        case nowhere
        case pending(Dictionary<String, PendingWrite>.Index)
        case stored(Dictionary<String, PropertyListValue>.Index)
    }

    /// What a read of `key` returns, found without hashing `key` when it was read last.
    static func read(_ key: String, in state: inout State) -> PropertyListValue? {
        if let place = state.recentReads.answer(for: key, serial: state.readSerial) {
            return value(at: place, in: state)
        }
        let place = place(of: name(for: key, in: state), in: state)
        state.recentReads.remember(place, for: key, serial: state.readSerial)
        return value(at: place, in: state)
    }

    /// The name the value of `key` is kept under: `key`, unless the file holds it as a later spelling of an
    /// equal key, or it starts with `U+FFFF` (see ``KeySpelling``).
    ///
    /// A spelling the file does not hold reads and writes the entry of an equal one, as Swift's `String` would.
    @inline(__always)
    static func name(for key: String, in state: State) -> String {
        state.spellings ? spelledName(for: key, in: state) : key
    }

    @inline(never)
    private static func spelledName(for key: String, in state: State) -> String {
        if KeySpelling.isMarked(key) { return KeySpelling.name(of: key) }
        let name = KeySpelling.name(of: key)
        return state.pending[name] != nil || state.stored[name] != nil ? name : key
    }

    /// `batch` with its keys named as ``name(for:in:)`` names them; `nil` when every key is its own name.
    ///
    /// A batch that passed `checkStorable()` holds no key starting with `U+FFFF`, so only a file can hold one.
    static func naming(_ batch: DefaultsBatch, in state: State) -> DefaultsBatch? {
        state.spellings ? batch.renamingKeys { name(for: $0, in: state) } : nil
    }

    /// What a read of the value kept under `name` returns: a pending write's value, else the file's.
    static func lookup(_ name: String, in state: State) -> PropertyListValue? {
        value(at: place(of: name, in: state), in: state)
    }

    static func place(of key: String, in state: State) -> ReadPlace {
        if !state.pending.isEmpty, let index = state.pending.index(forKey: key) { return .pending(index) }
        if state.pendingClear != nil { return .nowhere }
        return state.stored.index(forKey: key).map(ReadPlace.stored) ?? .nowhere
    }

    static func value(at place: ReadPlace, in state: State) -> PropertyListValue? {
        switch place {
        case .nowhere: nil
        case .pending(let index): state.pending.values[index].value
        case .stored(let index): state.stored.values[index]
        }
    }

    /// What reads of `keys` return, keyed by name; keys that read as absent are left out.
    static func values(of keys: some Sequence<String>, in state: State) -> [String: PropertyListValue] {
        var values: [String: PropertyListValue] = [:]
        for key in keys { values[key] = lookup(key, in: state) }
        return values
    }

    /// A monotonic clock cheap enough to read on every read: its resolution (a few milliseconds) is far finer
    /// than the freshness interval.
    static func now() -> UInt64 {
        #if os(Linux)
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
        #else
        return DispatchTime.now().uptimeNanoseconds
        #endif
    }

    /// Every value, as the file and this process's pending writes make them, in one consistent state.
    public func snapshot() -> [String: PropertyListValue] {
        loadIfNeeded()
        // Only copies are taken under the lock (constant time); the pending writes are laid over them after.
        let (stored, pending, cleared, reload, spellings) = state.withLock { state in
            (
                state.stored, state.pending, state.pendingClear != nil, Self.claimReload(&state, now: Self.now()),
                state.spellings
            )
        }
        startCheck(reload)
        let values = Self.effectiveValues(stored: stored, pending: pending, cleared: cleared)
        return spellings ? Self.keyedBySpelling(values) : values
    }

    /// `values` keyed by the spellings their names stand for (see ``KeySpelling``): of two equal spellings, a
    /// dictionary keyed by `String` holds one, the first in the file.
    static func keyedBySpelling(_ values: [String: PropertyListValue]) -> [String: PropertyListValue] {
        var keyed = values.filter { !KeySpelling.isMarked($0.key) }
        for (name, value) in values {
            guard let spelling = KeySpelling.spelling(of: name), keyed[spelling] == nil else { continue }
            keyed[spelling] = value
        }
        return keyed
    }

    /// Reads the file again now, and throws if it is damaged, unreadable or unsafe.
    public func checkHealth() throws(DefaultsError) {
        loadIfNeeded()
        reloadNow()
        if let problem = state.withLock({ $0.problem }) { throw problem }
    }

    /// What reads return for every key: the file's values with this process's pending writes on top.
    func effectiveValues(_ state: State) -> [String: PropertyListValue] {
        Self.effectiveValues(stored: state.stored, pending: state.pending, cleared: state.pendingClear != nil)
    }

    static func effectiveValues(
        stored: [String: PropertyListValue],
        pending: [String: PendingWrite],
        cleared: Bool
    ) -> [String: PropertyListValue] {
        var values = cleared ? [:] : stored
        for (key, write) in pending { values[key] = write.value }
        return values
    }

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
            let after = Self.lookup(key, in: state)
            if !before.isIdentical(to: after) {
                state.announcements.append(DefaultsStoreChange(key: key, oldValue: before, newValue: after))
            }
            return result
        }
        let before = Self.values(of: keys, in: state)
        let result = try mutate(&state)
        state.announcements += before.changes(to: Self.values(of: keys, in: state))
        return result
    }

    /// Reads the file for the first time, if nothing has read or written it yet.
    func loadIfNeeded() {
        guard !state.withLock({ $0.loaded }) else { return }
        DefaultsDiagnostics.holding {
            loadLock.lock()
            defer { loadLock.unlock() }
            guard !state.withLock({ $0.loaded }) else { return }
            // Parsed outside the state's lock; only a damaged file needs the file lock, to preserve it.
            let contents: SuiteFile.Contents
            do throws(DefaultsError) {
                contents = try readFile()
            } catch {
                return swapIn(.failure(error), firstLoad: true)
            }
            let damaged: Bool
            if case .damaged = contents { damaged = true } else { damaged = false }
            if damaged { fileLock.lock() }
            defer { if damaged { fileLock.unlock() } }
            swapIn(
                Result { () throws(DefaultsError) in try resolve(contents, mustPreserve: false) },
                firstLoad: true
            )
        }
    }

    /// Reads the file again if it changed since it was last read or written, and announces what changed.
    ///
    /// Parsing happens outside the state's lock, so readers go on with the copy they have meanwhile.
    func reloadNow() {
        DefaultsDiagnostics.holding {
            fileLock.lock()
            defer { fileLock.unlock() }
            // A check already running when the exit flush starts finishes first (the flush waits for the file
            // lock); one that would start after it does not start.
            guard !BackgroundWork.isStopped else { return }
            var wasRead = false
            defer { followReads(wasRead) }
            let (known, base) = state.withLock { state in
                state.reloadScheduled = false
                state.checks += 1
                wasRead = state.readSinceCheck
                state.readSinceCheck = false
                // A file that could not be read is tried again even if unchanged (its permissions may be).
                let known = state.loaded && state.problem?.isAboutContents ?? true ? state.version : nil
                return (known, state.loaded ? StoredBase(values: state.stored, serial: state.storedSerial) : nil)
            }
            do throws(DefaultsError) {
                // This process's own writes set the version under the file lock, so they are never read back.
                if let known, try file.currentVersion() == known { return }
                let contents = try readFile()
                let writeCount = state.withLock { $0.lastWritten.isEmpty } ? nil : file.writeCount()
                let reading = Result { () throws(DefaultsError) in try resolve(contents, mustPreserve: false) }
                // What changed is worked out here, outside the lock that readers take.
                let changed = (try? reading.get())
                    .flatMap { resolved in
                        base.map {
                            ChangedKeys(keys: $0.values.keysDiffering(from: resolved.values), serial: $0.serial)
                        }
                    }
                swapIn(reading, writeCount: writeCount, changed: changed)
            } catch {
                swapIn(.failure(error))
            }
        }
    }

    /// Sets the next check to run 50 ms from now if reads came just before this one began (`wasRead`) or
    /// since, so that a steady stream of reads never wakes a thread itself.
    ///
    /// A read that finds the copy stale could start the check (`BackgroundWork.run`), but waking a thread from the
    /// reading thread lets the scheduler hand that thread's core to the woken one in the middle of the read:
    /// on a busy machine that read then waits milliseconds for a core. A timer starts the check instead, for as
    /// long as reads keep coming, and claims it as a read would, so no read starts another meanwhile; once a
    /// whole interval passes without a read, the timer stops, and the next stale read starts a check again.
    func followReads(_ wasRead: Bool) {
        let follow = state.withLock { state in
            guard wasRead || state.readSinceCheck, !state.followUpScheduled else { return false }
            state.followUpScheduled = true
            return true
        }
        guard follow else { return }
        BackgroundWork.run(after: .nanoseconds(Self.freshnessInterval)) { [self] in
            let due = state.withLock { state in
                state.followUpScheduled = false
                guard state.readSinceCheck, !state.reloadScheduled else { return false }
                state.lastCheck = Self.now()
                state.reloadScheduled = true
                return true
            }
            if due { reloadNow() }
        }
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
        changed: ChangedKeys? = nil
    ) {
        let retired = withState { state -> [String: PropertyListValue] in
            if firstLoad, state.loaded { return [:] }
            defer {
                state.loaded = true
                state.lastCheck = Self.now()
            }
            switch reading {
            case .success(let resolved):
                if resolved.problem == nil { checkForRevert(resolved.values, writeCount: writeCount, &state) }
                let keys = changed?.keys(for: state)
                return announcingChanges(&state, onlyKeys: keys) { state in
                    defer { state.stored = resolved.values }
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
                // The expected snapshot is one `snapshot()` returned, keyed by spelling.
                guard batch.holds(for: Self.keyedBySpelling(values)) else { return false }
                var checked = batch
                checked.expected = nil
                checked.apply(to: &values)
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
        try write(changingOnly: []) { _ in () }
    }

    /// Applies the pending writes and then `change` to the file, under the file lock; returns what `change`
    /// returned.
    ///
    /// `change` is the library's own code (user code has run before, outside the locks), and changes only
    /// the keys `changingOnly` names (`nil`: any key). The file is read, changed and written back whole; it is
    /// left alone when nothing changed and it is intact.
    func write<Outcome>(
        changingOnly keys: [String]?,
        _ change: (inout [String: PropertyListValue]) -> Outcome
    ) throws(DefaultsError) -> Outcome {
        try DefaultsDiagnostics.holding { () throws(DefaultsError) -> Outcome in
            fileLock.lock()
            defer { fileLock.unlock() }
            while true {
                if let outcome = try writeOnce(changingOnly: keys, change) { return outcome }
            }
        }
    }

    /// One attempt at ``write(changingOnly:_:)``; `nil` when the file lock turned out to be lost, and nothing
    /// was written.
    ///
    /// Its cost beyond writing the file is in the keys it changes, not in the size of the suite: only they are
    /// compared, and only they are announced, unless another process changed the file meanwhile.
    func writeOnce<Outcome>(
        changingOnly changeKeys: [String]?,
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
            lock throws(DefaultsError) -> (Outcome, Resolved, [DefaultsStoreChange], UInt64?, ChangedKeys?)? in
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
            let original = resolved.values
            var values = original
            if pendingClear != nil { values.removeAll() }
            for (key, write) in pending { values[key] = write.value }
            let outcome = change(&values)
            // Which stored values this write changes, for the announcements: the keys it touched, and those
            // another process changed in the file, found here, outside the lock that readers take.
            let changed = known.flatMap { known in
                touched.map { touched in
                    let external = unchangedFile ? [] : known.1.values.keysDiffering(from: original)
                    return ChangedKeys(keys: touched + external, serial: known.1.serial)
                }
            }
            let written = touched.map { original.changes(to: values, amongKeys: $0) } ?? original.changes(to: values)
            if case .values = current, written.isEmpty {
                let version = try file.currentVersion()
                let resolved = Resolved(values: values, version: version, problem: nil, spellings: spellings)
                return (outcome, resolved, [], nil, changed)
            }
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
            let bytes = SuiteImage.writing(
                values,
                changes: written.map { ($0.key, $0.newValue) },
                holdingSpellings: spellings,
                over: base
            )
            guard let (version, writeCount) = try file.write(bytes.bytes, holding: lock) else { return nil }
            keepImage(bytes, of: version)
            let data = bytes.bytes
            // The backup bytes replaced are freed after the lock, as a replaced image is.
            let replacedBackup = state.withLock { state in
                state.fileWrites += 1
                defer { state.pendingBackup = (data, version) }
                return state.pendingBackup
            }
            let scheduleBackup = replacedBackup == nil
            // A little later, so that a burst of immediate writes makes one copy, not one each.
            if scheduleBackup { BackgroundWork.run(after: .milliseconds(50)) { [self] in writeBackup() } }
            return (
                outcome,
                Resolved(
                    values: bytes.values(afterWriting: values, holdingSpellings: spellings),
                    version: version,
                    problem: nil,
                    goodSince: version.modified,
                    spellings: spellings || bytes.holdsSpellings
                ),
                written, writeCount, changed
            )
        }
        guard let (outcome, resolved, written, writeCount, changed) = attempt else { return nil }
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
            return announcingChanges(&state, onlyKeys: keys) { state in
                defer { state.stored = resolved.values }
                state.version = resolved.version
                state.spellings = resolved.spellings || state.pending.keys.contains(where: KeySpelling.isMarked)
                state.loaded = true
                state.problem = nil
                state.lastCheck = Self.now()
                if let since = resolved.goodSince { state.goodSince = since }
                state.pending = state.pending.filter { $0.value.generation > generation }
                if let clear = state.pendingClear, clear <= generation { state.pendingClear = nil }
                return state.stored
            }
        }
        // The values replaced are freed here, after the lock: freeing a large suite's takes milliseconds.
        _ = retired
        return outcome
    }

    func report(_ kind: DefaultsDiagnostic.Kind, key: String?, _ message: String) {
        DefaultsDiagnostics.report(
            DefaultsDiagnostic(kind: kind, suite: name, key: key, message: message),
            oncePerProcess: false
        )
    }
}

extension DefaultsError {
    var diagnosticKind: DefaultsDiagnostic.Kind {
        if case .damagedFile = self { .damagedFile } else { .unreadableFile }
    }

    /// Whether the error is about what the file holds, which stays true while the file is unchanged.
    var isAboutContents: Bool {
        if case .damagedFile = self { true } else { false }
    }
}
#endif
