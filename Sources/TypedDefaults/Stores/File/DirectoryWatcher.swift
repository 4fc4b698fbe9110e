// The library's own file store is Linux's; on Apple platforms values live in UserDefaults (see Package.swift).
#if !TYPED_DEFAULTS_FOUNDATION_STORAGE
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif
import Dispatch
import Foundation

/// Tells suites that another process wrote their file, using inotify on the files' directories.
///
/// `DispatchSource.makeFileSystemObjectSource` does not exist on Linux, and a watch on the file itself dies
/// when a writer replaces the file by renaming (as TypedDefaults and most editors do), so the directory is
/// watched: `IN_CLOSE_WRITE` for writers that rewrite in place (Foundation), `IN_MOVED_TO` for writers that
/// rename, `IN_CREATE` for links, `IN_DELETE` and `IN_MOVED_FROM` for removal. One inotify descriptor serves
/// the process, with one watch per directory and one registration per suite file, however many observers;
/// the kernel wakes a dispatch source only when something happens, so an idle watcher costs no CPU.
///
/// The watch follows the directory's path, not its inode: when the directory is removed or renamed
/// (`IN_DELETE_SELF`, `IN_MOVE_SELF`, `IN_IGNORED`), or events were lost (`IN_Q_OVERFLOW`), every file in it
/// is reported as possibly changed and the watch is added again by path. While a directory cannot be watched
/// (it does not exist, or inotify's limits are reached) it is polled every ``pollingInterval`` instead, and
/// each poll tries to watch it again. A registration's callback is cheap when nothing changed (the storage
/// compares a `stat`), so a spurious call costs little.
final class DirectoryWatcher: Sendable {
    static let shared = DirectoryWatcher()

    /// How often a directory that cannot be watched is polled, in milliseconds.
    static let pollingInterval = 250

    /// One suite file's registration, to cancel it.
    struct Registration: Sendable, Hashable {
        fileprivate let id: UInt64
        fileprivate let directory: String
    }

    private struct File: Sendable {
        let name: String
        /// Whether a write that changes the file in place counts before the writer closes it: an append to a
        /// journal does.
        let appends: Bool
        let onChange: @Sendable () -> Void
    }

    private struct Directory: Sendable {
        var files: [UInt64: File] = [:]
        /// The inotify watch on the directory now at this path; `nil` while it is polled instead.
        var descriptor: Int32?
    }

    /// The thread that polls while some directory cannot be watched; it stops when its generation is gone.
    private struct Poller: Sendable {
        let generation: UInt64
        /// A semaphore, not a lock: the poller sleeps on it between polls, and stopping wakes it early.
        let wakeup: DispatchSemaphore
    }

    private struct State: Sendable {
        var inotify: Int32 = -1
        /// The dispatch source that reads `inotify`, made with it and kept as long as it.
        var reader: SourceBox?
        var directories: [String: Directory] = [:]
        var nextID: UInt64 = 0
        var poller: Poller?
    }

    /// Why a directory could not be watched.
    private struct Failure: Sendable {
        let call: String
        let code: Int32
        let directory: String
        let fileName: String

        /// Whether a system limit is to blame (rather than a missing directory, say).
        var isLimit: Bool { [EMFILE, ENFILE, ENOSPC, ENOMEM].contains(code) }
    }

    private let state = Locked(State())
    /// Where callbacks run, one batch at a time; internal so tests can hold it up.
    let queue = DispatchQueue(label: "TypedDefaults.watcher")
    /// The system limit diagnostic is reported once per process, not once per watcher or per poll.
    private static let limitReported = Locked(false)

    #if os(Linux)
    private static let mask = UInt32(
        IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF
            | IN_ONLYDIR
    )

    /// The events watched in `directory`: in-place writes too (every write to any file of it) only while a
    /// registration there counts appends.
    private static func mask(for directory: Directory?) -> UInt32 {
        directory?.files.values.contains(where: \.appends) == true ? mask | UInt32(IN_MODIFY) : mask
    }
    /// The events that say the watch no longer stands for the directory at its path.
    private static let watchGone = UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED | IN_UNMOUNT)
    #endif

    // MARK: For tests

    /// Whether `fileName` in `directory` is registered (watched or polled), for tests.
    func isWatching(directory: String, fileName: String) -> Bool {
        state.withLock { $0.directories[directory]?.files.values.contains { $0.name == fileName } ?? false }
    }

    /// Whether `directory` has an inotify watch (rather than being polled), for tests.
    func isArmed(directory: String) -> Bool {
        state.withLock { $0.directories[directory]?.descriptor != nil }
    }

    /// Whether a polling thread runs, for tests.
    var isPolling: Bool { state.withLock { $0.poller != nil } }

    /// The inotify descriptor (`-1` before the first watch), for tests that count the kernel's watches.
    var inotifyDescriptor: Int32 { state.withLock { $0.inotify } }

    // MARK: Registering

    /// Calls `onChange` on the watcher's queue whenever `fileName` in `directory` is written, replaced or
    /// removed, or `directory` itself is replaced; the directory need not exist yet.
    ///
    /// With `appends`, every write counts at once; otherwise a write counts when its writer closes the file.
    ///
    /// Where the system cannot watch (the directory is missing, inotify's limits are reached), `onChange` is
    /// called every ``pollingInterval`` milliseconds instead until it can. Returns `nil` only on systems
    /// without inotify (reads still notice changes on their own there).
    func watch(
        directory: String,
        fileName: String,
        appends: Bool = false,
        onChange: @escaping @Sendable () -> Void
    ) -> Registration? {
        #if os(Linux)
        let (registration, failure, poller) = state.withLock { state in
            state.nextID += 1
            let id = state.nextID
            let isNew = state.directories[directory] == nil
            state.directories[directory, default: Directory()].files[id] = File(
                name: fileName,
                appends: appends,
                onChange: onChange
            )
            let needsAppends = appends && !isNew && state.directories[directory]?.descriptor != nil
            let failure = isNew || needsAppends ? arm(directory, &state) : nil
            return (Registration(id: id, directory: directory), failure, updatePolling(&state))
        }
        if let poller { startPolling(poller) }
        // On the queue, so a diagnostics handler never runs on the caller's stack.
        if let failure { queue.async { Self.report(failure) } }
        return registration
        #else
        return nil
        #endif
    }

    /// Stops calling the registration's callback.
    ///
    /// The directory's watch (and its polling) goes with its last registration. A callback already under way
    /// may still finish after this returns.
    func cancel(_ registration: Registration) {
        #if os(Linux)
        state.withLock { state in
            guard var directory = state.directories[registration.directory] else { return }
            directory.files[registration.id] = nil
            if directory.files.isEmpty {
                state.directories[registration.directory] = nil
                if let descriptor = directory.descriptor { release([descriptor], &state) }
            } else {
                state.directories[registration.directory] = directory
            }
            _ = updatePolling(&state)
        }
        #endif
    }

    deinit {
        state.withLock { state in
            // The source's cancel handler closes the descriptor once the source no longer uses it.
            state.reader?.source.cancel()
            state.poller?.wakeup.signal()
            state.poller = nil
        }
    }

    #if os(Linux)
    // MARK: Watching (under the lock)

    /// Adds the inotify watch for the directory at `path`; returns why it cannot.
    private func arm(_ path: String, _ state: inout State) -> Failure? {
        let fileName = state.directories[path]?.files.values.first?.name ?? ""
        if state.inotify < 0, let code = openInotify(&state) {
            return Failure(call: "inotify_init1", code: code, directory: path, fileName: fileName)
        }
        // Adding a watch of a directory already watched changes its events: that is how appends come to count.
        let descriptor = inotify_add_watch(state.inotify, path, Self.mask(for: state.directories[path]))
        guard descriptor >= 0 else {
            return Failure(call: "inotify_add_watch", code: errno, directory: path, fileName: fileName)
        }
        state.directories[path]?.descriptor = descriptor
        return nil
    }

    /// Opens the inotify descriptor and starts reading it; returns the error code if it cannot.
    private func openInotify(_ state: inout State) -> Int32? {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return errno }
        // libdispatch needs two more descriptors (epoll, eventfd) for a process's first source and kills
        // the process if it cannot have them, so with fewer spare the directory is polled instead.
        let spares = [dup(descriptor), dup(descriptor)]
        let code = errno
        for spare in spares where spare >= 0 { close(spare) }
        guard !spares.contains(-1) else {
            close(descriptor)
            return code
        }
        let reader = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        reader.setEventHandler { [weak self] in self?.drain() }
        reader.setCancelHandler { close(descriptor) }
        reader.resume()
        state.inotify = descriptor
        state.reader = SourceBox(reader)
        return nil
    }

    /// Drops the watches of `paths` and adds them again by path (the path may now name another directory,
    /// or none); returns why one could not be watched, a system limit first.
    private func rearm(_ paths: some Sequence<String>, _ state: inout State) -> Failure? {
        var dropped: [Int32] = []
        var failure: Failure?
        for path in paths {
            if let descriptor = state.directories[path]?.descriptor { dropped.append(descriptor) }
            state.directories[path]?.descriptor = nil
            // The same directory still at its path gets its watch back with the same descriptor.
            if let new = arm(path, &state), failure?.isLimit != true { failure = new }
        }
        release(dropped, &state)
        return failure
    }

    /// Removes the kernel's watches among `descriptors` that no directory uses any more (two paths to one
    /// directory share one watch).
    private func release(_ descriptors: [Int32], _ state: inout State) {
        for descriptor in Set(descriptors)
        where !state.directories.values.contains(where: { $0.descriptor == descriptor }) {
            // Fails harmlessly (EINVAL) when the kernel already dropped it with its directory.
            inotify_rm_watch(state.inotify, descriptor)
        }
    }

    /// Starts polling when a directory is not watched and stops it when all are; returns a poller to start.
    private func updatePolling(_ state: inout State) -> Poller? {
        let needed = state.directories.values.contains { $0.descriptor == nil }
        if needed, state.poller == nil {
            state.nextID += 1
            let poller = Poller(generation: state.nextID, wakeup: DispatchSemaphore(value: 0))
            state.poller = poller
            return poller
        }
        if !needed, let poller = state.poller {
            state.poller = nil
            poller.wakeup.signal()
        }
        return nil
    }

    // MARK: Events (on the queue)

    /// Reads every pending event and calls the callbacks of the files they may have changed.
    private func drain() {
        let descriptor = state.withLock { $0.inotify }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var events: [(wd: Int32, mask: UInt32, name: String)] = []
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
                    events.append((wd, mask, String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)))
                    offset += 16 + length
                }
            }
        }
        guard !events.isEmpty else { return }
        let (callbacks, failure, poller) = state.withLock {
            state -> ([@Sendable () -> Void], Failure?, Poller?) in
            var due: [UInt64: @Sendable () -> Void] = [:]
            var lost: [String] = []
            var overflowed = false
            for event in events {
                if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    overflowed = true
                    continue
                }
                for (path, directory) in state.directories where directory.descriptor == event.wd {
                    if event.mask & Self.watchGone != 0 {
                        // The directory went away or moved: whatever is at the path now may hold another file.
                        lost.append(path)
                        for (id, file) in directory.files { due[id] = file.onChange }
                    } else {
                        let counts = { (file: File) in event.mask != UInt32(IN_MODIFY) || file.appends }
                        for (id, file) in directory.files where file.name == event.name && counts(file) {
                            due[id] = file.onChange
                        }
                    }
                }
            }
            if overflowed {
                // Lost events may have said that a directory went away: check every watch against its path.
                for directory in state.directories.values {
                    for (id, file) in directory.files { due[id] = file.onChange }
                }
                lost = state.directories.filter { $0.value.descriptor != nil }.map(\.key)
            }
            let failure = rearm(Set(lost), &state)
            return (Array(due.values), failure, updatePolling(&state))
        }
        if let poller { startPolling(poller) }
        Self.report(failure)
        for callback in callbacks { callback() }
    }

    // MARK: Polling

    /// Polls on a thread of its own rather than a dispatch timer: with no descriptor left, libdispatch can
    /// neither arm a timer (it needs a timerfd; the timer never fires) nor make its first source (it kills
    /// the process), while a thread needs none.
    private func startPolling(_ poller: Poller) {
        Thread.detachNewThread { [weak self] in
            while true {
                _ = poller.wakeup.wait(timeout: .now() + .milliseconds(DirectoryWatcher.pollingInterval))
                guard let self, self.queue.sync(execute: { self.poll(poller.generation) }) else { return }
            }
        }
    }

    /// Tries again to watch every directory that is polled, and calls their callbacks (a change may have
    /// happened before the watch was added); returns whether to keep polling.
    private func poll(_ generation: UInt64) -> Bool {
        let (callbacks, failure, keepPolling) = state.withLock {
            state -> ([@Sendable () -> Void], Failure?, Bool) in
            guard state.poller?.generation == generation else { return ([], nil, false) }
            let polled = state.directories.filter { $0.value.descriptor == nil }
            let callbacks = polled.values.flatMap { $0.files.values.map(\.onChange) }
            let failure = rearm(polled.keys, &state)
            _ = updatePolling(&state)
            return (callbacks, failure, state.poller?.generation == generation)
        }
        Self.report(failure)
        for callback in callbacks { callback() }
        return keepPolling
    }
    #endif

    // MARK: Diagnostics

    /// Says, once per process, that a system limit keeps a directory from being watched and how to raise it.
    private static func report(_ failure: Failure?) {
        guard let failure, failure.isLimit else { return }
        let first = limitReported.withLock { reported in
            defer { reported = true }
            return !reported
        }
        guard first else { return }
        let suite = failure.fileName.hasSuffix(".plist") ? String(failure.fileName.dropLast(6)) : failure.fileName
        let message =
            "cannot watch \(failure.directory) for other processes' writes (\(failure.call): "
            + "\(String(cString: strerror(failure.code)))); changes are still delivered, by polling every "
            + "\(pollingInterval) ms. Raise the limits: `sysctl fs.inotify.max_user_instances=<n>` (inotify "
            + "instances per user), `sysctl fs.inotify.max_user_watches=<n>` (watched directories per user), or "
            + "the open-file limit (`ulimit -n`)"
        DefaultsDiagnostics.report(
            DefaultsDiagnostic(kind: .fileWatchUnavailable, suite: suite, key: nil, message: message),
            oncePerProcess: true
        )
    }
}

/// Holds the dispatch source; only touched under the watcher's `state` lock.
private final class SourceBox: @unchecked Sendable {
    // Set once and never mutated; the source itself is thread-safe, and `DirectoryWatcher.state` guards this box.
    let source: any DispatchSourceRead

    init(_ source: any DispatchSourceRead) { self.source = source }
}
#endif
