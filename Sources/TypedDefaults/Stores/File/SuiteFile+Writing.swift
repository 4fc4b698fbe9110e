// The library's own file store is Linux's; on Apple platforms values live in UserDefaults (see Package.swift).
#if !TYPED_DEFAULTS_FOUNDATION_STORAGE
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif
import Foundation

// Writing the file: the suite's file lock, atomic replacement, the backup copy, and preserving a damaged file.
extension SuiteFile {
    // MARK: Writing

    /// The longest a writer waits for another process to release the suite's file lock before it gives up
    /// with ``DefaultsError/writeFailed(suite:key:reason:)`` (the write is kept and tried again later), so a
    /// stopped or stuck process cannot freeze every other writer.
    static let lockWaitLimit: Duration = .seconds(5)

    /// The suite's file lock, held by this process: valid while the lock file it was taken on is still the
    /// one at the path.
    struct HeldLock {
        let descriptor: Int32
        let path: String

        /// Counts one more write in the lock file; returns the new count.
        func countWrite() -> UInt64 {
            var count = (Self.count(in: descriptor) ?? 0) &+ 1
            _ = withUnsafeBytes(of: &count) { pwrite(descriptor, $0.baseAddress, 8, 0) }
            return count
        }

        static func count(in descriptor: Int32) -> UInt64? {
            var count: UInt64 = 0
            let read = withUnsafeMutableBytes(of: &count) { pread(descriptor, $0.baseAddress, 8, 0) }
            return read == 8 ? count : (read == 0 ? 0 : nil)
        }

        /// Whether the lock file is still the one at the path: one deleted or replaced since is no lock, for
        /// the next writer creates and locks a new one.
        var isStillAtPath: Bool {
            var held = stat()
            var current = stat()
            return fstat(descriptor, &held) == 0 && lstat(path, &current) == 0 && held.st_ino == current.st_ino
                && held.st_dev == current.st_dev
        }
    }

    /// Runs `body` holding the exclusive lock that every TypedDefaults writer of this suite, in any process,
    /// takes before reading the file to merge into it.
    ///
    /// The lock file is opened for each use and closed after. The caller serializes its own calls (the lock is
    /// per open file). Without `creatingLockFile`, a missing lock file (the suite was removed) is an error rather
    /// than made again.
    func withExclusiveLock<Result>(
        creatingDirectory: Bool = true,
        creatingLockFile: Bool = true,
        _ body: (HeldLock) throws(DefaultsError) -> Result
    ) throws(DefaultsError) -> Result {
        let deadline = ContinuousClock.now + Self.lockWaitLimit
        while true {
            guard ContinuousClock.now < deadline else { throw lockTimeout() }
            if creatingDirectory { try createDirectory() }
            let flags = O_RDWR | (creatingLockFile ? O_CREAT : 0)
            guard let descriptor = try openRegularFile(lockPath, flags, followingLinks: false) else {
                throw writeFailed("cannot open the lock file \(lockPath)", ENOENT)
            }
            // Closing the descriptor releases the lock, and so does the kernel when the process dies holding it.
            defer { close(descriptor) }
            guard try lock(descriptor, LOCK_EX, until: deadline) else { throw lockTimeout() }
            let lock = HeldLock(descriptor: descriptor, path: lockPath)
            guard lock.isStillAtPath else { continue }
            // A lock file this call created holds no write count yet; records go after it.
            lock.makeHeader()
            return try body(lock)
        }
    }

    /// Runs `body` holding the suite's lock shared, as readers of the journal do, or returns `nil` when a writer
    /// holds it exclusively for longer than ``sharedLockWait`` (or there is no lock file: `body` gets `nil`).
    ///
    /// Shared, the lock keeps writers from rebuilding the file and emptying the journal, while `set`s go on
    /// appending to it.
    func withSharedLock<Result>(_ body: (HeldLock?) throws(DefaultsError) -> Result) throws(DefaultsError) -> Result? {
        for _ in 0..<8 {
            guard let descriptor = try openRegularFile(lockPath, O_RDONLY, followingLinks: false) else {
                return try body(nil)
            }
            defer { close(descriptor) }
            guard try lock(descriptor, LOCK_SH, until: ContinuousClock.now + Self.sharedLockWait) else { return nil }
            let lock = HeldLock(descriptor: descriptor, path: lockPath)
            if lock.isStillAtPath { return try body(lock) }
        }
        return nil
    }

    /// How long a reader waits for a writer rebuilding the file (which takes milliseconds) before it tries again
    /// later: long enough that a change another process makes while it rebuilds is read at once, and heard on
    /// its own rather than together with the next one.
    static let sharedLockWait: Duration = .milliseconds(50)

    /// Takes `operation` (`LOCK_EX` or `LOCK_SH`) on `descriptor`, waiting with back-off until `deadline`, or not
    /// at all without one; `false` when it was not had in time.
    func lock(_ descriptor: Int32, _ operation: Int32, until deadline: ContinuousClock.Instant?) throws(DefaultsError)
        -> Bool
    {
        // A shared lock waits for a rebuild of the file, which takes a millisecond or two: it looks again soon.
        var backoff =
            operation == LOCK_SH
            ? Backoff(first: .microseconds(20), limit: .milliseconds(2))
            : Backoff(first: .microseconds(500), limit: .milliseconds(20))
        while flock(descriptor, operation | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            guard code == EWOULDBLOCK else { throw writeFailed("cannot lock \(lockPath)", code) }
            guard let deadline, ContinuousClock.now < deadline else { return false }
            backoff.pause()
        }
        return true
    }

    func lockTimeout() -> DefaultsError {
        writeFailed(
            "another process has held the lock file \(lockPath) for more than \(Self.lockWaitLimit); "
                + "the values are kept and written later",
            nil
        )
    }

    /// How many times TypedDefaults writers have replaced the file, as counted in the lock file; `nil` when
    /// the lock file cannot be read.
    ///
    /// Every TypedDefaults writer counts its write under the lock, so a file that changed while the count did
    /// not was changed by a writer that takes no lock.
    func writeCount() -> UInt64? {
        guard let descriptor = try? openRegularFile(lockPath, O_RDONLY, followingLinks: false) else { return nil }
        defer { close(descriptor) }
        return HeldLock.count(in: descriptor)
    }

    /// Replaces the file with `bytes` (a property list the writer made), atomically and durably; returns the
    /// new version, or `nil`, having changed nothing, when `lock` no longer guards the file or the file is no
    /// longer `expected`, the version the writer read (`nil`: none).
    ///
    /// The second check is for a lock file another program deleted: a writer that locked a new one may have
    /// read the file before this one's write landed, and must read again rather than write over it.
    func write(
        _ bytes: [UInt8],
        holding lock: HeldLock,
        over expected: Version?
    ) throws(DefaultsError) -> (version: Version, writeCount: UInt64)? {
        try createDirectory()
        var info = stat()
        let replacing = lstat(path, &info) == 0
        if replacing {
            if info.st_mode & S_IFMT == S_IFLNK {
                throw .unsafeFile(
                    path: path,
                    reason: "it is a symbolic link, and TypedDefaults never writes through a link; "
                        + "replace the link with the file it points to"
                )
            }
            try checkRegularFile(info, at: path)
        }
        let temporary = try writeTemporaryCopy(of: bytes, durably: true)
        // Checked last, just before the file changes: a lock file deleted meanwhile lets another writer in.
        guard lock.isStillAtPath, (try? currentVersion()) == expected else {
            unlink(temporary)
            return nil
        }
        // Counted before the new file appears: a reader that takes no lock and finds the new file then finds
        // the new count too, and never takes this write for one by a writer that takes no lock.
        let count = lock.countWrite()
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw writeFailed("cannot rename the new file into place", code)
        }
        // A new directory entry is synced once. Replacing an entry needs no sync for the file to stay whole:
        // its contents were synced before the rename, so a power loss leaves the old or the new version, and
        // the rename itself reaches the disk with the file system's next journal commit.
        if !replacing { syncDirectory() }
        guard let version = try currentVersion() else {
            throw writeFailed("the file vanished right after it was written", nil)
        }
        return (version, count)
    }

    /// Removes the file, its backup copy and the lock file, holding the lock, when the file holds no value.
    ///
    /// The suite is then gone from disk, as `UserDefaults.removePersistentDomain(forName:)` leaves it on Apple
    /// platforms. Returns `false`, removing nothing, when the file holds values (another writer came between
    /// the caller's emptying write and this call) or the lock no longer guards it.
    ///
    /// The lock file goes last, while held: a writer waiting on it finds it gone from the path, as after any
    /// lock file deletion, and creates a new one (see ``HeldLock/isStillAtPath``).
    func removeIfEmpty(holding lock: HeldLock) throws(DefaultsError) -> Bool {
        switch try read() {
        case .values(let values, _, _) where values.isEmpty: break
        case .missing: break
        default: return false
        }
        guard lock.isStillAtPath else { return false }
        if unlink(path) != 0, errno != ENOENT { throw writeFailed("cannot remove \(path)", errno) }
        unlink(backupPath)
        unlink(lockPath)
        syncDirectory()
        return true
    }

    /// Keeps `data` as the last good copy, if the file still holds the version it was written as; call while
    /// holding the lock.
    ///
    /// The copy serves only to recover from another program tearing the file, so it is best effort: written
    /// in place and not synced. Overwriting, then trimming, costs less than truncating first.
    func writeBackup(_ data: [UInt8], of version: Version) {
        guard (try? currentVersion()) == version else { return }
        guard let backup = try? openRegularFile(backupPath, O_WRONLY | O_CREAT, followingLinks: false) else {
            return
        }
        if (try? writeAll(data, to: backup, path: backupPath)) != nil { ftruncate(backup, off_t(data.count)) }
        close(backup)
    }

    /// Removes temporary files that writers killed mid-write left behind; call while holding the lock.
    func removeAbandonedTemporaryFiles() {
        let prefix = "." + fileName + ".tmp-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasPrefix(prefix) {
            // Exactly `<pid>-<serial>`: another suite may be named like one of these files, and its file (which
            // ends in `.plist`) is not ours to remove.
            let parts = name.dropFirst(prefix.count).split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2, UInt64(parts[1]) != nil, let pid = pid_t(parts[0]), pid != getpid(),
                kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            unlink(directory + "/" + name)
        }
    }

    /// Copies a damaged file's bytes beside it, under a name that says what it is, before anything replaces
    /// it; returns the copy's path.
    func preserveDamaged(_ data: Data) throws(DefaultsError) -> String {
        // Another process, or an earlier run, may have preserved these very bytes already.
        let prefix = fileName + ".damaged-"
        let earlier = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in earlier.sorted() where name.hasPrefix(prefix) {
            let candidate = directory + "/" + name
            guard let descriptor = try? openRegularFile(candidate, O_RDONLY, followingLinks: false) else { continue }
            defer { close(descriptor) }
            var info = stat()
            guard fstat(descriptor, &info) == 0, Int(info.st_size) == data.count else { continue }
            if (try? readAll(descriptor, sizeHint: data.count, path: candidate)) == data { return candidate }
        }
        let stamp = Self.timestampForFileName()
        for attempt in 1...100 {
            let candidate = path + ".damaged-" + stamp + (attempt == 1 ? "" : "-\(attempt)")
            let descriptor = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if descriptor < 0 {
                if errno == EEXIST { continue }
                throw writeFailed("cannot preserve the damaged file as \(candidate)", errno)
            }
            defer { close(descriptor) }
            do throws(DefaultsError) {
                try writeAll(data, to: descriptor, path: candidate)
                guard fsync(descriptor) == 0 else { throw writeFailed("cannot sync \(candidate)", errno) }
            } catch {
                // A full disk must not leave a partial copy behind (nor one per attempt).
                unlink(candidate)
                throw error
            }
            return candidate
        }
        throw writeFailed("too many preserved copies of \(path) this second", nil)
    }
}
#endif
