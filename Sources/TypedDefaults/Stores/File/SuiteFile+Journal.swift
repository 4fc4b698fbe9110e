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

private func systemClose(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}

// The journal in the lock file: appending a write's record, reading the records, and emptying it once the
// property-list file holds them (see `SuiteJournal`).
extension SuiteFile {
    /// This process's descriptor of the lock file for appending records, and the records not appended yet.
    ///
    /// Kept open while the store is in use, so that a `set` costs one `write(2)` and a lock; a child forked
    /// without `exec` opens its own (a descriptor it inherited shares its lock with the parent's).
    struct JournalAppender: Sendable {
        fileprivate var descriptor: Int32 = -1
        /// The process that opened the descriptor, as ``BackgroundWork/forks`` tells processes apart.
        fileprivate var owner: UInt64 = 0
        /// Whether the descriptor is one of the ``keptDescriptorLimit`` kept open between writes.
        fileprivate var kept = false
        /// The salt of the records' hashes in the lock file open, once read.
        fileprivate var salt: UInt64?
        /// The payloads of records whose append failed (a full disk, a lock held too long), in order: each is
        /// appended before the next record, and folded into the file by the next flush.
        var unappended: [[UInt8]] = []
        /// How many bytes this process has appended since it last read the journal to its end (or emptied it),
        /// to tell when every record past that point is its own.
        var appendedSinceLook = 0

        /// Closes the descriptor, if this process opened it (a child forked without `exec` has closed the ones it
        /// inherited; their numbers may stand for other files there).
        mutating func close() {
            if descriptor >= 0, owner == BackgroundWork.forks {
                _ = systemClose(descriptor)
                if kept { SuiteFile.keptDescriptors.withLock { _ = $0.remove(descriptor) } }
            }
            descriptor = -1
            kept = false
            salt = nil
        }
    }

    /// The longest a `set` waits for the shared lock, which a writer rebuilding the file holds exclusively.
    static let appendWaitLimit: Duration = .seconds(1)

    /// How many suites keep their lock file open between writes, at most: a program with thousands of suites
    /// open must not run out of descriptors, and the others open it for each write (a few microseconds).
    static let keptDescriptorLimit = 64
    static let keptDescriptors = Locked(Set<Int32>())

    /// Closes, in a child forked without `exec`, the descriptors the parent keeps: a lock is the open file's,
    /// which the child's copy would keep alive, so a parent killed while appending would leave the suite locked
    /// for as long as the child lives.
    private static let closingKeptDescriptorsInChild: Void = {
        pthread_atfork(nil, nil) {
            // The library's locks are free in the child (see `LockRegistry`), whose handler ran first.
            SuiteFile.keptDescriptors.withLock { kept in
                for descriptor in kept { _ = systemClose(descriptor) }
                kept.removeAll()
            }
        }
    }()

    /// Appends the record of `payload` (see ``SuiteJournal/payload(removingAll:_:)``), after every record that could
    /// not be appended before, holding the suite's lock shared; once this returns, the write survives the process.
    ///
    /// On failure the payload is kept in `appender`, and the error thrown.
    func appendToJournal(_ payload: [UInt8], with appender: inout JournalAppender) throws(DefaultsError) {
        appender.unappended.append(payload)
        // A descriptor not kept open between writes is closed after this one, whatever happens.
        defer { if !appender.kept { appender.close() } }
        // A writer rebuilding the file holds the lock for milliseconds. One that holds it longer (stopped, or on
        // a stalled disk) holds up one `set` for a second at most; the next ones, while this one is not appended,
        // do not wait.
        let wait = appender.unappended.count == 1 ? Self.appendWaitLimit : .zero
        for _ in 0..<8 {
            let descriptor = try appendingDescriptor(&appender)
            if let appended = try appendHoldingLock(
                appender.unappended,
                to: descriptor,
                salt: &appender.salt,
                waiting: wait
            ) {
                appender.unappended.removeAll(keepingCapacity: true)
                appender.appendedSinceLook += appended
                return
            }
            // Another program deleted or replaced the lock file: what was appended went nowhere.
            appender.close()
        }
        throw writeFailed("another program keeps replacing the lock file \(lockPath)", nil)
    }

    /// Creates the lock file with its write count in place, atomically: a record appended to a lock file must
    /// never land where the count belongs, and no lock can be taken to write the count into a new file (a
    /// thread of this process may hold the lock shared while it waits for the `set` that would take it).
    private func createLockFile() throws(DefaultsError) {
        var header = [UInt8](repeating: 0, count: 8)
        withUnsafeBytes(of: UInt64.random(in: .min ... .max).littleEndian) { header += $0 }
        let temporary = try writeTemporaryCopy(of: header, durably: false)
        defer { unlink(temporary) }
        if link(temporary, lockPath) != 0, errno != EEXIST {
            throw writeFailed("cannot create the lock file \(lockPath)", errno)
        }
    }

    /// Appends the records of `payloads` to the lock file open as `descriptor`, holding its lock shared; returns
    /// how many bytes, or `nil` when the file turns out to be gone from its path (deleted or replaced), so that the
    /// bytes went nowhere.
    private func appendHoldingLock(
        _ payloads: [[UInt8]],
        to descriptor: Int32,
        salt: inout UInt64?,
        waiting wait: Duration
    ) throws(DefaultsError) -> Int? {
        if flock(descriptor, LOCK_SH | LOCK_NB) != 0 {
            // The deadline is only worked out when the lock is busy: reading the clock costs every write.
            guard try lock(descriptor, LOCK_SH, until: ContinuousClock.now + wait) else {
                throw writeFailed(
                    "another process has held the lock file \(lockPath) for more than \(Self.appendWaitLimit) (it may "
                        + "be stopped); the write is kept in memory, and written once the lock is released",
                    nil
                )
            }
        }
        defer { flock(descriptor, LOCK_UN) }
        // A lock file without its header (made by an older version, or by another program) takes no record: the
        // next rebuild of the file writes the header, and this write is kept until then.
        if salt == nil { salt = HeldLock.salt(in: descriptor) }
        guard let salt else {
            throw writeFailed("the lock file \(lockPath) has no header yet; the write is kept in memory", nil)
        }
        let bytes =
            payloads.count == 1
            ? SuiteJournal.record(payload: payloads[0], salt: salt)
            : Array(payloads.map { SuiteJournal.record(payload: $0, salt: salt) }.joined())
        // One write(2): with O_APPEND it lands whole after every record before it, never between two others'.
        let written = bytes.withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else {
            // What a short write left fails its record's hash, and readers skip it.
            let code = errno
            if written < 0 { throw writeFailed("cannot append to \(lockPath)", code) }
            throw writeFailed(
                "cannot append to \(lockPath): only \(written) of \(bytes.count) bytes were written "
                    + "(the disk is full, or the file size limit is reached)",
                nil
            )
        }
        // Still the lock file at the path (`removeSuite()` in any process, or another program, may have deleted
        // it): else the record went nowhere, and is appended to the one there now.
        var info = stat()
        return fstat(descriptor, &info) == 0 && info.st_nlink > 0 ? written : nil
    }

    /// The appender's descriptor, opened (with the count in place before any record) if it is not yet, was
    /// closed, or was inherited from a parent process.
    private func appendingDescriptor(_ appender: inout JournalAppender) throws(DefaultsError) -> Int32 {
        let process = BackgroundWork.forks
        if appender.descriptor >= 0, appender.owner == process { return appender.descriptor }
        // Closing an inherited descriptor leaves the parent's open file, and its lock, as they are.
        appender.close()
        try createDirectory()
        var opened = try openRegularFile(lockPath, O_RDWR | O_APPEND, followingLinks: false)
        if opened == nil {
            try createLockFile()
            opened = try openRegularFile(lockPath, O_RDWR | O_APPEND, followingLinks: false)
        }
        guard let descriptor = opened else { throw writeFailed("cannot open the lock file \(lockPath)", ENOENT) }
        // A lock file of an older version holds the count alone: its header is completed now if no writer holds
        // the lock (waiting for one here could wait for a reader of this process that waits for this write).
        if HeldLock.salt(in: descriptor) == nil,
            let other = try? openRegularFile(lockPath, O_RDWR, followingLinks: false)
        {
            if flock(other, LOCK_EX | LOCK_NB) == 0 { HeldLock(descriptor: other, path: lockPath).makeHeader() }
            close(other)
        }
        appender.descriptor = descriptor
        appender.owner = process
        Self.closingKeptDescriptorsInChild
        appender.kept = Self.keptDescriptors.withLock { kept in
            guard kept.count < Self.keptDescriptorLimit else { return false }
            kept.insert(descriptor)
            return true
        }
        return descriptor
    }
}

extension SuiteFile.HeldLock {
    /// What the journal held when read: the write count, the writes from an offset on, and where they end.
    struct JournalReading {
        var count: UInt64?
        var writes: [SuiteJournal.Write] = []
        /// Where the next record starts: where reading goes on next time.
        var end: Int
        /// Whether bytes that are no record were skipped.
        var damaged = false
        /// Whether the file ends with bytes that are not a whole record yet (cut short by a writer's death, when
        /// read under the exclusive lock).
        var cutShort = false
    }

    /// The write count and the journal's writes from `offset` on (from its start if the journal is now shorter).
    ///
    /// With `allWritten` (holding the lock exclusively), bytes that are no whole record at the end were left by a
    /// writer that died in the middle of its `write(2)`, and one cut short before a whole record is skipped.
    func readJournal(from offset: Int = SuiteJournal.headerSize, allWritten: Bool = false) -> JournalReading {
        var info = stat()
        let size = fstat(descriptor, &info) == 0 ? Int(info.st_size) : 0
        let count = Self.count(in: descriptor)
        let salt = Self.salt(in: descriptor)
        let start = max(offset <= size ? offset : SuiteJournal.headerSize, SuiteJournal.headerSize)
        guard let salt, size > start, size - start <= SuiteFile.maximumFileSize else {
            return JournalReading(count: count, end: start)
        }
        var bytes = [UInt8](repeating: 0, count: size - start)
        let read = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(start)) }
        guard read > 0 else { return JournalReading(count: count, end: start) }
        let records = SuiteJournal.read(bytes[0..<read], salt: salt, allWritten: allWritten)
        return JournalReading(
            count: count,
            writes: records.writes,
            end: start + records.consumed,
            damaged: records.damaged,
            cutShort: records.consumed < read
        )
    }

    /// The lock file's size: where the next record will start.
    var journalSize: Int {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? Int(info.st_size) : 0
    }

    /// Empties the journal, once the property-list file holds its writes; call holding the exclusive lock.
    func emptyJournal() {
        ftruncate(descriptor, off_t(SuiteJournal.headerSize))
    }

    /// Puts the header in place in a lock file that lacks it (a new one, or an older version's, which holds the
    /// count alone), before any record: the count, zero if missing, and a random salt; call holding the exclusive
    /// lock, on a descriptor opened without `O_APPEND`.
    func makeHeader() {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_size < SuiteJournal.headerSize else { return }
        if info.st_size < 8 { ftruncate(descriptor, 8) }
        var salt = UInt64.random(in: .min ... .max).littleEndian
        _ = withUnsafeBytes(of: &salt) { pwrite(descriptor, $0.baseAddress, 8, 8) }
    }

    /// The salt of the records' hashes, from the header of the lock file open as `descriptor`; `nil` if the
    /// header is not there.
    static func salt(in descriptor: Int32) -> UInt64? {
        var salt: UInt64 = 0
        let read = withUnsafeMutableBytes(of: &salt) { pread(descriptor, $0.baseAddress, 8, 8) }
        return read == 8 ? UInt64(littleEndian: salt) : nil
    }
}
#endif
