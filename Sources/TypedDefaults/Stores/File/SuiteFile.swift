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

// The C library's read(2) and write(2) under names that `SuiteFile`'s own `read` and `write` do not shadow.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}

/// One suite's property-list file: the only code in TypedDefaults that touches the file system.
///
/// Foundation rewrites a suite's file in place (truncate, then write), so a crash, a `kill -9` or a full disk
/// in the middle destroys it, and it replaces a file it cannot parse with an empty one. This type writes a
/// temporary file, syncs it, renames it over the suite's file and syncs the directory, so the file on disk
/// is always either the old version or the new one. Writers take an exclusive `flock` on a lock file beside
/// it (`.<suite>.plist.lock`), so writers in several processes merge instead of overwriting each other.
/// Readers need no lock: a rename never exposes a half-written file. A copy of the last version written
/// (`.<suite>.plist.backup`) lets a suite recover when another program tears the file.
struct SuiteFile: Sendable {
    /// What identifies one version of the file: a rename makes a new inode, an in-place rewrite a new size or
    /// modification time.
    struct Version: Equatable, Sendable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: timespec
        /// The inode's change time, which no program can set back (a modification time can be).
        var changed: timespec

        static func == (lhs: Version, rhs: Version) -> Bool {
            lhs.device == rhs.device && lhs.inode == rhs.inode && lhs.size == rhs.size
                && lhs.modified.tv_sec == rhs.modified.tv_sec && lhs.modified.tv_nsec == rhs.modified.tv_nsec
                && lhs.changed.tv_sec == rhs.changed.tv_sec && lhs.changed.tv_nsec == rhs.changed.tv_nsec
        }
    }

    /// What the file holds; with the file's image when it was read by what changed since an earlier image.
    enum Contents: Sendable {
        case missing
        case values([String: PropertyListValue], Version, image: SuiteImage? = nil)
        case damaged(Data, Version, reason: String)
    }

    /// An earlier version of the file, as an image and the values it holds, to read a later version by what
    /// changed.
    typealias Basis = (image: PropertyListXML.Image, values: [String: PropertyListValue])

    let path: String
    let directory: String
    let fileName: String
    private static let temporaryFileSerial = Locked(0)

    init(directory: String, suiteName: String) {
        self.directory = directory
        self.fileName = suiteName + ".plist"
        self.path = directory + "/" + fileName
    }

    private var lockPath: String { directory + "/." + fileName + ".lock" }
    private var backupPath: String { directory + "/." + fileName + ".backup" }

    // MARK: Reading

    /// The current version, without reading the file; `nil` when there is no file.
    func currentVersion() throws(DefaultsError) -> Version? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw unreadable(errno)
        }
        try checkRegularFile(info, at: path)
        return Version(info)
    }

    /// Reads and parses the file.
    ///
    /// A symbolic link is followed for reading (a dotfile manager may link the file); anything but a regular
    /// file at the end of it is refused.
    ///
    /// With a `basis`, only the entries whose bytes differ from it are parsed, when that can be done.
    func read(basis: Basis? = nil) throws(DefaultsError) -> Contents {
        guard let descriptor = try openRegularFile(path, O_RDONLY, followingLinks: true) else { return .missing }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw unreadable(errno) }
        let data = try readAll(descriptor, sizeHint: Int(info.st_size), path: path)
        if let basis,
            let (values, image) = data.withUnsafeBytes({ bytes in
                basis.image.reading(bytes.bindMemory(to: UInt8.self), values: basis.values)
            })
        {
            return .values(values, Version(info), image: .xml(image))
        }
        switch Self.parse(data) {
        case .success(let parsed): return .values(parsed.values, Version(info), image: parsed.image)
        case .failure(let problem): return .damaged(data, Version(info), reason: problem.reason)
        }
    }

    /// How long a file that does not parse must have been left alone before it is taken to be damaged rather
    /// than caught in the middle of a rewrite (Foundation rewrites in place, so readers can see a part).
    static let settleTime: Duration = .milliseconds(200)

    /// Reads the file; one that does not parse but changed less than ``settleTime`` ago is read again once
    /// it has been left alone that long (for at most a second, in case it never is).
    func readSettled(basis: Basis? = nil) throws(DefaultsError) -> Contents {
        var contents = try read(basis: basis)
        var waited: Duration = .zero
        while case .damaged(_, let version, _) = contents, waited < .seconds(1) {
            // A modification time in the future (clock skew, a file copied with its times) counts as now.
            let age = max(version.age, .zero)
            guard age < Self.settleTime else { break }
            let pause = min(max(Self.settleTime - age, .milliseconds(10)), Self.settleTime)
            usleep(UInt32(pause / .microseconds(1)))
            waited += pause
            contents = try read(basis: basis)
        }
        return contents
    }

    /// The values of the last version a TypedDefaults writer wrote, with when the copy was made, if that
    /// copy is intact.
    func readBackup() -> (values: [String: PropertyListValue], made: timespec)? {
        guard let descriptor = try? openRegularFile(backupPath, O_RDONLY, followingLinks: false) else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0,
            let data = try? readAll(descriptor, sizeHint: Int(info.st_size), path: backupPath),
            let values = try? Self.parse(data).get().values
        else { return nil }
        return (values, info.modificationTime)
    }

    struct ParseProblem: Error {
        var reason: String
    }

    /// The values `data` holds; with its image when that is needed to write the file back without loss.
    ///
    /// A binary property list is read by TypedDefaults' own reader into an image that every later write of
    /// the suite changes: Foundation's reader would merge keys that Swift's `String` takes to be equal, and
    /// TypedDefaults could not hold a null, a UID or a number key that Foundation reads in a dictionary.
    static func parse(
        _ data: Data
    ) -> Result<(values: [String: PropertyListValue], image: SuiteImage?), ParseProblem> {
        guard !data.isEmpty else { return .failure(ParseProblem(reason: "the file is empty")) }
        if data.starts(with: Array("bplist00".utf8)), BinaryPropertyListReader.foundationCrash(on: data) == nil {
            guard let reader = try? BinaryPropertyListReader(data),
                let root = try? reader.tree(maximumNesting: PropertyListXMLReader.maximumNesting)
            else {
                return .failure(ParseProblem(reason: "it is a damaged binary property list"))
            }
            guard let image = BinaryPropertyListImage(root, bytes: [UInt8](data)) else {
                return .failure(ParseProblem(reason: "its root is not a dictionary"))
            }
            return .success((image.values, .binary(image)))
        }
        // Foundation's reader, where TypedDefaults' own XML reader leaves the file, keeps one of two keys that
        // Swift's `String` takes to be equal, and reads a dictionary holding only CF$UID as a UID, which no
        // value holds: such a file is read entry by entry, so that a write keeps all of it.
        let read: PropertyListValue?
        if data.first == UInt8(ascii: "<"), let value = PropertyListXMLReader.value(from: data) {
            read = value
        } else if data.first == UInt8(ascii: "<"), let list = PropertyListXML.EntryList(reading: data) {
            return .success((list.values, .xmlEntries(list)))
        } else {
            read = PropertyListValue(propertyListData: data)
        }
        guard let root = read else {
            return .failure(ParseProblem(reason: "it is not a property list (truncated, or another format)"))
        }
        guard case .dictionary(let values) = root else {
            return .failure(ParseProblem(reason: "its root is not a dictionary with string keys"))
        }
        return .success((values, nil))
    }

    // MARK: Writing

    /// The longest a writer waits for another process to release the suite's file lock before it gives up
    /// with ``DefaultsError/writeFailed(suite:key:reason:)`` (the write is kept and tried again later), so a
    /// stopped or stuck process cannot freeze every other writer.
    static let lockWaitLimit: Duration = .seconds(5)

    /// The suite's file lock, held by this process: valid while the lock file it was taken on is still the
    /// one at the path.
    struct HeldLock {
        fileprivate let descriptor: Int32
        fileprivate let path: String

        /// Counts one more write in the lock file; returns the new count.
        func countWrite() -> UInt64 {
            var count = (Self.count(in: descriptor) ?? 0) &+ 1
            _ = withUnsafeBytes(of: &count) { pwrite(descriptor, $0.baseAddress, 8, 0) }
            return count
        }

        fileprivate static func count(in descriptor: Int32) -> UInt64? {
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
    /// The lock file is opened for each use and closed after, so a suite holds no descriptor between writes.
    /// The caller serializes its own calls (the lock is per open file). Without `creatingLockFile`, a missing
    /// lock file (the suite was removed) is an error rather than made again.
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
            var pause: UInt32 = 500
            while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
                let code = errno
                if code == EINTR { continue }
                guard code == EWOULDBLOCK else { throw writeFailed("cannot lock \(lockPath)", code) }
                guard ContinuousClock.now < deadline else { throw lockTimeout() }
                usleep(pause)
                pause = min(pause * 2, 20_000)
            }
            let lock = HeldLock(descriptor: descriptor, path: lockPath)
            if lock.isStillAtPath { return try body(lock) }
        }
    }

    private func lockTimeout() -> DefaultsError {
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
    /// new version, or `nil`, having changed nothing, when `lock` no longer guards the file.
    func write(
        _ bytes: [UInt8],
        holding lock: HeldLock
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
        guard lock.isStillAtPath else {
            unlink(temporary)
            return nil
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw writeFailed("cannot rename the new file into place", code)
        }
        // A new directory entry is synced once. Replacing an entry needs no sync for the file to stay whole:
        // its contents were synced before the rename, so a power loss leaves the old or the new version, and
        // the rename itself reaches the disk with the file system's next journal commit.
        if !replacing { syncDirectory() }
        let count = lock.countWrite()
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

    // MARK: Helpers

    private func writeTemporaryCopy(of data: [UInt8], durably: Bool) throws(DefaultsError) -> String {
        let serial = Self.temporaryFileSerial.withLock { serial in
            serial += 1
            return serial
        }
        // The process ID lets a later writer tell a killed writer's leftovers from a live writer's file.
        let temporary = directory + "/." + fileName + ".tmp-\(getpid())-\(serial)"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw writeFailed("cannot create \(temporary)", errno) }
        do throws(DefaultsError) {
            try writeAll(data, to: descriptor, path: temporary)
            // fdatasync: the contents and the size, which is all a reader needs; not the timestamps.
            if durably, fdatasync(descriptor) != 0 { throw writeFailed("cannot sync \(temporary)", errno) }
            close(descriptor)
            return temporary
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
    }

    private func writeAll(_ data: some ContiguousBytes, to descriptor: Int32, path: String) throws(DefaultsError) {
        let failure: Int32? = data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let failure { throw writeFailed("cannot write \(path)", failure) }
    }

    /// The largest file TypedDefaults reads: far above any suite it writes (each value is at most
    /// ``PropertyListValue/maximumEncodedSize``), and far below what would exhaust memory (a sparse file can
    /// claim terabytes).
    static let maximumFileSize = 256 * 1024 * 1024

    private func readAll(_ descriptor: Int32, sizeHint: Int, path: String) throws(DefaultsError) -> Data {
        guard sizeHint <= Self.maximumFileSize else { throw tooLarge(path) }
        var data = Data(capacity: max(sizeHint, 0))
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            guard data.count <= Self.maximumFileSize else { throw tooLarge(path) }
            let count = buffer.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return data }
            if count < 0 {
                if errno == EINTR { continue }
                throw unreadable(errno)
            }
            data.append(contentsOf: buffer[0..<count])
        }
    }

    /// Creates the directory and any missing parents with mode 0700, as Foundation does.
    func createDirectory() throws(DefaultsError) {
        var info = stat()
        if stat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { return }
        var partial = ""
        for component in directory.split(separator: "/") {
            partial += "/" + component
            if mkdir(partial, 0o700) != 0, errno != EEXIST {
                throw writeFailed("cannot create the directory \(partial)", errno)
            }
        }
        guard stat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw .unsafeFile(path: directory, reason: "it is not a directory")
        }
    }

    private func syncDirectory() {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    /// Opens `path` only if it is a regular file, never blocking (a FIFO or device at any path TypedDefaults
    /// touches must not hang it, nor be written to); `nil` when there is nothing at the path.
    ///
    /// Without `followingLinks`, a symbolic link is refused too.
    private func openRegularFile(
        _ path: String,
        _ flags: Int32,
        followingLinks: Bool
    ) throws(DefaultsError) -> Int32? {
        var info = stat()
        let exists = (followingLinks ? stat(path, &info) : lstat(path, &info)) == 0
        // Looked at before opening, so that a device is never even opened.
        if exists, info.st_mode & S_IFMT != S_IFREG { try checkRegularFile(info, at: path) }
        let descriptor = open(
            path,
            flags | O_NONBLOCK | O_CLOEXEC | (followingLinks ? 0 : O_NOFOLLOW),
            0o600
        )
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return nil }
            if code == ELOOP || code == ENXIO {
                throw .unsafeFile(path: path, reason: "it is not a regular file (a link, a FIFO or a device)")
            }
            throw flags & (O_WRONLY | O_RDWR) != 0 ? writeFailed("cannot open \(path)", code) : unreadable(code)
        }
        // And after: the path may have changed in between.
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            try checkRegularFile(info, at: path)
            return nil
        }
        return descriptor
    }

    private func checkRegularFile(_ info: stat, at path: String) throws(DefaultsError) {
        let kind: String
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: kind = "a directory"
        case S_IFIFO: kind = "a FIFO"
        case S_IFSOCK: kind = "a socket"
        case S_IFCHR, S_IFBLK: kind = "a device"
        case S_IFLNK: kind = "a symbolic link"
        default: kind = "not a regular file"
        }
        throw .unsafeFile(path: path, reason: "it is \(kind), not a property-list file")
    }

    private func tooLarge(_ path: String) -> DefaultsError {
        .unsafeFile(
            path: path,
            reason:
                "it is larger than \(Self.maximumFileSize / 1024 / 1024) MiB, far more than any suite TypedDefaults "
                + "writes; it is left as it is"
        )
    }

    private func unreadable(_ code: Int32) -> DefaultsError {
        .unreadableFile(path: path, reason: String(cString: strerror(code)))
    }

    private func writeFailed(_ what: String, _ code: Int32?) -> DefaultsError {
        .writeFailed(
            suite: path,
            key: nil,
            reason: what + (code.map { ": " + String(cString: strerror($0)) } ?? "")
        )
    }

    private static func timestampForFileName() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        return String(
            format: "%04d%02d%02d-%02d%02d%02d",
            parts.tm_year + 1900,
            parts.tm_mon + 1,
            parts.tm_mday,
            parts.tm_hour,
            parts.tm_min,
            parts.tm_sec
        )
    }
}

extension SuiteFile.Version {
    /// How long ago the file was last modified, by the wall clock file times are kept in.
    var age: Duration {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let nanoseconds =
            (Int64(now.tv_sec) - Int64(modified.tv_sec)) * 1_000_000_000
            + (Int64(now.tv_nsec) - Int64(modified.tv_nsec))
        return .nanoseconds(nanoseconds)
    }

    fileprivate init(_ info: stat) {
        self.init(
            device: UInt64(info.st_dev),
            inode: UInt64(info.st_ino),
            size: Int64(info.st_size),
            modified: info.modificationTime,
            changed: info.changeTime
        )
    }
}

extension stat {
    fileprivate var modificationTime: timespec {
        st_mtim
    }

    fileprivate var changeTime: timespec {
        st_ctim
    }
}
#endif
