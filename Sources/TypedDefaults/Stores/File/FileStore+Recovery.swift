// The library's own file store is Linux's; on Apple platforms values live in UserDefaults (see Package.swift).
#if !TYPED_DEFAULTS_FOUNDATION_STORAGE
import Foundation

// What a damaged file stands for (the last good copy, preserved once), the backup copy that makes that
// possible, and the detection of writers that take no lock.
extension FileStore {
    /// The values a read of the file stands for; call holding the file lock.
    ///
    /// A damaged file is preserved beside itself (once) and stands for the last good copy: what this process
    /// read of the file before, else the backup, else nothing. With `mustPreserve` (before replacing it), a
    /// file that cannot be preserved is an error.
    func resolve(_ contents: SuiteFile.Contents, mustPreserve: Bool) throws(DefaultsError) -> Resolved {
        switch contents {
        case .missing:
            return Resolved(values: [:], version: nil, problem: nil)
        case .values(let values, let version, let image):
            return Resolved(
                values: values,
                version: version,
                problem: nil,
                goodSince: version.modified,
                spellings: image?.holdsSpellings ?? false
            )
        case .damaged(let data, let version, let reason):
            let (preserved, unpreserved, goodSince, earlier, spellings) = state.withLock { state in
                (
                    state.preservedVersion == version ? state.preservedPath : nil,
                    state.unpreservedVersion == version,
                    state.goodSince,
                    state.stored,
                    state.spellings
                )
            }
            // The last good copy is the newer of what this process had and the backup a writer left.
            let backup = file.readBackup()
            let useBackup = backup.map { backup in goodSince.map { backup.made.isLater(than: $0) } ?? true } ?? false
            var preservedAt = preserved
            if preservedAt == nil, mustPreserve || !unpreserved {
                do {
                    let path = try file.preserveDamaged(data)
                    preservedAt = path
                    state.withLock { state in
                        state.preservedVersion = version
                        state.preservedPath = path
                    }
                    let recovered = goodSince != nil || backup != nil
                    report(
                        .damagedFile,
                        key: nil,
                        "\(file.path) is damaged (\(reason)); preserved it as \(path) and "
                            + (recovered ? "recovered the last good copy" : "read defaults until the next write")
                    )
                } catch {
                    let first = state.withLock { state in
                        defer { state.unpreservedVersion = version }
                        return state.unpreservedVersion != version
                    }
                    if first {
                        report(
                            .damagedFile,
                            key: nil,
                            "\(file.path) is damaged (\(reason)) and could not be preserved (\(error.description)); "
                                + "it is left as it is, and not replaced until it can be preserved"
                        )
                    }
                    if mustPreserve { throw error }
                }
            }
            return Resolved(
                values: useBackup ? backup?.values ?? earlier : earlier,
                version: version,
                problem: .damagedFile(path: file.path, preservedAt: preservedAt ?? "", reason: reason),
                goodSince: useBackup ? backup?.made : nil,
                spellings: !useBackup && spellings
            )
        }
    }

    /// Reports keys that this process wrote and that the file now holds as they were before, after another
    /// program rewrote the file in place: the mark of a writer that takes no lock (Foundation's
    /// `synchronize()`), which TypedDefaults cannot stop, only detect.
    ///
    /// `writeCount` is the lock file's count of TypedDefaults writes when the file was read: the same count
    /// as after this process's last write means that the file was changed by a writer that takes no lock.
    func checkForRevert(
        _ values: [String: PropertyListValue],
        writeCount: UInt64?,
        _ state: inout State
    ) {
        guard !state.lastWritten.isEmpty, let writeCount else { return }
        let unlocked = writeCount == state.lastWriteCount
        var reverted: [String] = []
        for (key, written) in state.lastWritten {
            let now = values[key]
            if now.isIdentical(to: written.newValue) { continue }
            if unlocked, now.isIdentical(to: written.oldValue) { reverted.append(key) }
            state.lastWritten[key] = nil
        }
        guard !reverted.isEmpty else { return }
        let names = reverted.sorted().prefix(5).map { String(reflecting: $0) }.joined(separator: ", ")
        report(
            .revertedByUnlockedWriter,
            key: reverted.count == 1 ? reverted[0] : nil,
            "another program rewrote \(file.path) in place without taking TypedDefaults' lock and put back the "
                + "old values of \(names)\(reverted.count > 5 ? " and \(reverted.count - 5) more" : ""), which this "
                + "process had written; a writer that takes no lock (such as Foundation's UserDefaults.synchronize()) "
                + "cannot be stopped, so write this suite through TypedDefaults or its defaults tool only"
        )
    }

    /// Writes the latest backup copy, under both locks so it never overwrites a newer writer's copy.
    func writeBackup() {
        fileLock.lock()
        defer { fileLock.unlock() }
        guard
            let backup = state.withLock({ state in
                defer { state.pendingBackup = nil }
                return state.pendingBackup
            })
        else { return }
        // A directory removed since the write stays removed: the copy is not worth making it again. Nor does a
        // suite removed since (`removeSuite()`, `defaults delete`) get its lock file back.
        try? file.withExclusiveLock(creatingDirectory: false, creatingLockFile: false) { _ in
            file.writeBackup(backup.data, of: backup.version)
        }
    }

    /// Writes the backup copy now, if one is due, rather than in the background.
    func finishBackgroundWork() {
        writeBackup()
    }
}

extension timespec {
    func isLater(than other: timespec) -> Bool {
        (tv_sec, tv_nsec) > (other.tv_sec, other.tv_nsec)
    }
}
#endif
