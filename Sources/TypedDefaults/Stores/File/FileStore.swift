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
/// check; while reads keep coming, a timer starts the next ones, and the file watch starts one when anyone
/// observes.
///
/// Writes are made in order, and survive the process as soon as they return: each write goes to the copy and,
/// with one `write(2)`, to the end of the suite's journal (`SuiteJournal`, in the lock file), under the
/// suite's lock held shared, so every process's writes are in the journal in the order they were made. The
/// file is rebuilt from the journal under the lock held exclusively, within `foldInterval` of a write, at a
/// normal exit, on ``flush()``, and when a process first reads a suite whose journal a killed process left:
/// the current file is read, the journal's writes applied key by key in order, and the result replaces the file
/// atomically, synced; then the journal is emptied. Nothing is dropped because it equals a stale cached value
/// (Foundation's trap). Both ends cost what changed, not the size of the suite: a file another process changed
/// is parsed only where its bytes differ from the version this process knows, and a rebuild copies the bytes of
/// the entries it leaves alone (see `SuiteImage`).
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
    let watch = Locked<[DirectoryWatcher.Registration]?>(nil)
    /// The file as this process last wrote it, and its version.
    ///
    /// The next write of a few keys changes a copy of its bytes rather than writing every value again. Used
    /// under `fileLock`.
    let image = Locked<(image: SuiteImage, version: SuiteFile.Version)?>(nil)
    /// Checks the file for another process's write, when the file watch or a stale read asks.
    let reloads = Coalescer<FileStore> { $0.reloadNow() }
    /// The check that follows a stream of reads, a freshness interval after the last: see ``followReads(_:)``.
    let readFollowing = Coalescer<FileStore> { $0.checkAfterReads() }
    /// Writes the backup copy a little after a write, so that a burst of immediate writes makes one copy, not
    /// one each.
    let backups = Coalescer<FileStore> { $0.writeBackup() }
    /// Appends this process's writes to the suite's journal, in the order they are made.
    ///
    /// Held while a write is applied in memory and appended, and while the journal is read or emptied: so the
    /// records in the journal and the writes in `pending` always agree on which came first. Taken after
    /// `fileLock`, before `state`.
    let appending = Locked(SuiteFile.JournalAppender())
    /// Rebuilds the file from the journal: within `foldInterval` of a write, and when this process first reads
    /// a suite whose journal holds writes (a process was killed before it rebuilt the file).
    ///
    /// A failure (a full disk) is reported, and tried again, waiting twice as long each time (up to 30 s).
    let folds = Coalescer<FileStore>(
        retrying: Backoff(first: .milliseconds(250), limit: .seconds(30)),
        reporting: { store, failure, retry in
            store.report(.writeFailed, key: nil, "\(failure); trying again in \(retry)")
        },
        { store in try store.flush() }
    )
    /// How soon after a write the file holds it, whatever the adapter's write policy: other programs read the
    /// file, not the journal.
    static let foldInterval: Duration = .milliseconds(100)

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
        /// Whether a read came since the last check began, for ``followReads(_:)``; set by every read, under the
        /// lock the read takes anyway.
        var readSinceCheck = false
        /// The writes that reads find over `stored`: those in the journal (this process's and others', read up to
        /// `journalOffset`), and this process's own that are not in the file yet.
        ///
        /// The next flush rebuilds the file with them and empties the journal.
        var pending: [String: PendingWrite] = [:] {
            didSet { readSerial &+= 1 }
        }
        /// The generation of a `removeAll` in `pending`, which applies before the writes there.
        var pendingClear: UInt64? {
            didSet { readSerial &+= 1 }
        }
        /// The journal's write count and where its records were last read to: `pending` holds the records before
        /// that offset, when the lock file still holds that count.
        var journalCount: UInt64?
        var journalOffset = SuiteJournal.headerSize
        /// Counts the changes of what reads return (`stored`, `pending`, `pendingClear`), so that an answer
        /// in `recentReads` is trusted only while it is current.
        var readSerial: UInt64 = 0
        var recentReads = RecentLookups<ReadPlace>()
        var generation: UInt64 = 0
        /// Why the file could not be used at the last look, for `checkHealth()`.
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
        /// The last version written and its bytes, for the backup copy; set until the copy is written.
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
        appending.withLock { $0.close() }
        for registration in watch.withLock({ $0 }) ?? [] { DirectoryWatcher.shared.cancel(registration) }
        let key = Array(file.path.utf8)
        // A newer storage for the path is handed out of the lock before it is released: its own deinit takes
        // the registry's lock too.
        let newer = Self.registry.withLock { storages -> FileStore? in
            let newer = storages[key]?.storage
            if newer == nil { storages[key] = nil }
            return newer
        }
        _ = newer
    }

    /// The suite's property-list file.
    public var fileURL: URL? { URL(fileURLWithPath: file.path) }

    /// How many times this store has written its file: what a burst of writes costs under a write policy.
    ///
    /// ```swift
    /// guard let store = Defaults.store as? FileStore else { return }
    /// let before = store.fileWriteCount
    /// for volume in 0..<1_000 { Defaults.volume = volume }
    /// try Defaults.flush()
    /// print(store.fileWriteCount - before)   // 1 with `.coalesced`
    /// ```
    public var fileWriteCount: Int { state.withLock { $0.fileWrites } }

    /// How many times this store read and parsed its file, for tests.
    package var fileReadCount: Int { state.withLock { $0.fileReads } }

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
        // Both locks are taken on every call, the first load's included: a debug build makes the metadata of
        // each call's generic types on its first run, under a lock of Swift's runtime, and a child forked
        // without exec must never be the first to run a line (another thread may have held that lock at the
        // fork, and the child would wait for it for good).
        let held = image.withLock { $0 }
        return state.withLock { state -> SuiteFile.Basis? in
            guard let (image, version) = held, let xml = image.xml else { return nil }
            return state.loaded && state.problem == nil && state.version == version ? (xml, state.stored) : nil
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
                if claimReload(&state, now: now) {
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
                state.stored, state.pending, state.pendingClear != nil, claimReload(&state, now: Self.now()),
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
