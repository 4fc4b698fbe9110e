// The library's own file store is Linux's; on Apple platforms values live in UserDefaults (see Package.swift).
#if !TYPED_DEFAULTS_FOUNDATION_STORAGE
import Foundation

// Removing a suite from disk: what `defaults delete DOMAIN` does, and `removePersistentDomain(forName:)`.
extension FileStore {
    /// Removes every value and then the suite's file, with its backup copy and lock file, so that nothing of
    /// the suite is left on disk.
    ///
    /// The values go as with any write that removes them all (observers hear of it; a damaged file is
    /// preserved first, and the error thrown if it cannot be); the files go only while the file still holds
    /// no value, so a write another process makes meanwhile is kept, and the suite then exists again. A
    /// later write in any process creates the file anew.
    ///
    /// ```swift
    /// try FileStore.suite("com.example.app").removeSuite()
    /// ```
    public func removeSuite() throws(DefaultsError) {
        _ = try apply(DefaultsBatch(removesAll: true))
        try flush()
        try DefaultsDiagnostics.holding { () throws(DefaultsError) in
            fileLock.lock()
            defer { fileLock.unlock() }
            // No backup copy of the empty file is left to be written after it is gone (it would bring the lock
            // file back).
            state.withLock { $0.pendingBackup = nil }
            _ = try file.withExclusiveLock(creatingDirectory: false) { lock throws(DefaultsError) in
                try file.removeIfEmpty(holding: lock)
            }
        }
    }
}
#endif
