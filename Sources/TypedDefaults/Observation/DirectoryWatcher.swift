#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// Tells suites that another process wrote their file, using inotify on the files' directories.
///
/// `DispatchSource.makeFileSystemObjectSource` does not exist on Linux, and a watch on the file itself dies
/// when a writer replaces the file by renaming (as TypedDefaults and most editors do), so the directory is
/// watched: `IN_CLOSE_WRITE` for writers that rewrite in place (Foundation), `IN_MOVED_TO` for writers that
/// rename, `IN_DELETE` and `IN_MOVED_FROM` for removal. One inotify descriptor serves the process, with one
/// watch per directory and one registration per suite file, however many observers; the kernel wakes a
/// dispatch source only when something happens, so an idle watcher costs no CPU.
final class DirectoryWatcher: Sendable {
    static let shared = DirectoryWatcher()

    /// One suite file's registration, to cancel it.
    struct Registration: Sendable, Hashable {
        fileprivate let id: UInt64
        fileprivate let directory: String
    }

    private struct File: Sendable {
        let name: String
        let onChange: @Sendable () -> Void
    }

    private struct Watch: Sendable {
        let descriptor: Int32
        var files: [UInt64: File] = [:]
    }

    private struct State: Sendable {
        var inotify: Int32 = -1
        var watches: [String: Watch] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())
    private let queue = DispatchQueue(label: "TypedDefaults.watcher")
    /// The dispatch source that reads the inotify descriptor; made once, kept for the process's lifetime.
    private let source = Locked<SourceBox?>(nil)

    /// Whether `fileName` in `directory` is watched, for tests.
    func isWatching(directory: String, fileName: String) -> Bool {
        state.withLock { $0.watches[directory]?.files.values.contains { $0.name == fileName } ?? false }
    }

    /// Calls `onChange` on the watcher's queue whenever `fileName` in `directory` is written, replaced or
    /// removed; returns `nil` where the system cannot watch (reads still notice changes on their own).
    func watch(directory: String, fileName: String, onChange: @escaping @Sendable () -> Void) -> Registration? {
        #if os(Linux)
        let registration: Registration? = state.withLock { state in
            if state.inotify < 0 {
                state.inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
                guard state.inotify >= 0 else { return nil }
            }
            if state.watches[directory] == nil {
                let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE)
                let descriptor = inotify_add_watch(state.inotify, directory, mask)
                guard descriptor >= 0 else { return nil }
                state.watches[directory] = Watch(descriptor: descriptor)
            }
            state.nextID += 1
            state.watches[directory]?.files[state.nextID] = File(name: fileName, onChange: onChange)
            return Registration(id: state.nextID, directory: directory)
        }
        if registration != nil { startReading() }
        return registration
        #else
        return nil
        #endif
    }

    func cancel(_ registration: Registration) {
        #if os(Linux)
        state.withLock { state in
            guard var watch = state.watches[registration.directory] else { return }
            watch.files[registration.id] = nil
            if watch.files.isEmpty {
                inotify_rm_watch(state.inotify, watch.descriptor)
                state.watches[registration.directory] = nil
            } else {
                state.watches[registration.directory] = watch
            }
        }
        #endif
    }

    #if os(Linux)
    private func startReading() {
        source.withLock { source in
            guard source == nil else { return }
            let descriptor = state.withLock { $0.inotify }
            let reader = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
            reader.setEventHandler { [weak self] in self?.drain() }
            reader.resume()
            source = SourceBox(reader)
        }
    }

    /// Reads every pending event and calls the callbacks of the files they name.
    private func drain() {
        let descriptor = state.withLock { $0.inotify }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var touched: [(wd: Int32, name: String)] = []
        var overflowed = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            buffer.withUnsafeBytes { bytes in
                var offset = 0
                // struct inotify_event { int wd; uint32_t mask; uint32_t cookie; uint32_t len; char name[]; }
                while offset + 16 <= count {
                    let wd = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                    let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameBytes = bytes[(offset + 16)..<min(offset + 16 + length, count)]
                    let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                    if mask & UInt32(IN_Q_OVERFLOW) != 0 { overflowed = true }
                    touched.append((wd, name))
                    offset += 16 + length
                }
            }
        }
        let callbacks: [@Sendable () -> Void] = state.withLock { state in
            state.watches.values.flatMap { watch in
                watch.files.values
                    .filter { file in
                        overflowed || touched.contains { $0.wd == watch.descriptor && $0.name == file.name }
                    }
                    .map(\.onChange)
            }
        }
        for callback in callbacks { callback() }
    }
    #endif
}

/// Holds the dispatch source; only touched under the watcher's `source` lock.
private final class SourceBox: @unchecked Sendable {
    // Set once and never mutated; the source itself is thread-safe, and `DirectoryWatcher.source` guards this box.
    let source: any DispatchSourceRead

    init(_ source: any DispatchSourceRead) { self.source = source }
}
