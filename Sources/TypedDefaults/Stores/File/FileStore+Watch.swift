// The library's own file store is Linux's; on Apple platforms values live in UserDefaults (see Package.swift).
#if !TYPED_DEFAULTS_FOUNDATION_STORAGE
import Foundation

// The file watch that tells observers of other processes' writes, running only while anyone observes.
extension FileStore {
    // MARK: Watching

    /// Starts or stops the file watch to match whether anyone observes; safe to call at any time from any
    /// thread, since it looks at the observers rather than being told.
    func observersChanged() {
        DefaultsDiagnostics.holding {
            watch.withLock { registration in
                let wanted = changes.hasObservers
                if wanted, registration == nil {
                    // A first look now gives later changes a baseline to be told apart from.
                    loadIfNeeded()
                    try? file.createDirectory()
                    let path = file.path
                    let onChange: @Sendable () -> Void = { FileStore.registered(at: path)?.scheduleReload() }
                    // The file, which writers rebuild, and the journal, which every `set` appends to.
                    registration = [
                        DirectoryWatcher.shared.watch(
                            directory: file.directory,
                            fileName: file.fileName,
                            onChange: onChange
                        ),
                        DirectoryWatcher.shared.watch(
                            directory: file.directory,
                            fileName: file.lockFileName,
                            appends: true,
                            onChange: onChange
                        ),
                    ]
                    .compactMap { $0 }
                } else if !wanted, let current = registration {
                    for each in current { DirectoryWatcher.shared.cancel(each) }
                    registration = nil
                }
            }
        }
    }
}
#endif
