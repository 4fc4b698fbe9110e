// The library's own file store is Linux's; on Apple platforms values live in UserDefaults (see Package.swift).
#if !TYPED_DEFAULTS_FOUNDATION_STORAGE
import Foundation

// One store per file while anyone uses it, and the flush of every store before the process exits.
extension FileStore {
    // MARK: One storage per file, while anyone uses it

    /// A registry entry that does not keep its storage alive: a suite nobody uses any more is released,
    /// with its memory (a scheduled flush or backup keeps it alive until done).
    struct Entry: Sendable {
        weak var storage: FileStore?
    }

    /// Keyed by the path's bytes, not its `String`: two spellings of one name (NFC and NFD `é`), which
    /// `String` takes to be equal, are two files, as they are to the file system and to Foundation.
    static let registry = Locked<[[UInt8]: Entry]>([:])

    /// The store of the suite named `suiteName`, kept in `<directory>/<suiteName>.plist`.
    ///
    /// With no `directory`, the file is where Foundation keeps suites: `$XDG_CONFIG_HOME/<suiteName>.plist`,
    /// or `~/.config/<suiteName>.plist` when `XDG_CONFIG_HOME` is unset, so code that uses
    /// `UserDefaults(suiteName:)` reads the same values. Every call for the same file in the process returns
    /// the same store while it is in use.
    ///
    /// Throws ``DefaultsError/invalidSuiteName(_:reason:)`` for a name that is empty, is `.` or `..`,
    /// contains `/` or a control character, is longer than a file name allows, or names the global domain;
    /// ``DefaultsError/invalidDirectory(_:reason:)`` for a directory that is not an absolute file URL; and
    /// ``DefaultsError/noConfigDirectory(reason:)`` when no directory is given and neither
    /// `XDG_CONFIG_HOME` nor `HOME` is set.
    ///
    /// ```swift
    /// let store = try FileStore.suite("com.example.app", directory: URL(fileURLWithPath: "/tmp/settings"))
    /// ```
    public static func suite(_ suiteName: String, directory: URL? = nil) throws(DefaultsError) -> FileStore {
        try SuiteName.validate(suiteName)
        let path: String
        if let directory {
            path = try SuiteName.validatedPath(of: directory)
        } else {
            path = try ConfigDirectory.resolve()
        }
        return shared(directory: path, suiteName: suiteName, name: suiteName)
    }

    /// The store of `.standard`: `<config directory>/<program name>.plist`.
    static func standard() throws(DefaultsError) -> FileStore {
        shared(directory: try ConfigDirectory.resolve(), suiteName: ConfigDirectory.standardSuiteName, name: "standard")
    }

    /// The store for the suite `suiteName` in `directory`, shared by every adapter in the process.
    static func shared(directory: String, suiteName: String, name: String) -> FileStore {
        let file = SuiteFile(directory: directory, suiteName: suiteName)
        let key = Array(file.path.utf8)
        return registry.withLock { storages in
            if let existing = storages[key]?.storage { return existing }
            let storage = FileStore(file: file, name: name)
            storages[key] = Entry(storage: storage)
            _ = exitFlush
            return storage
        }
    }

    static func registered(at path: String) -> FileStore? {
        registry.withLock { $0[Array(path.utf8)]?.storage }
    }

    /// Every suite open in this process.
    static var all: [FileStore] {
        registry.withLock { $0.values.compactMap(\.storage) }
    }

    /// Foundation writes nothing at exit; TypedDefaults rebuilds every suite's file from its journal when the
    /// process exits normally, so that other programs find it current at once.
    ///
    /// Nothing depends on it for durability: a `set` is in the journal when it returns, so a process ended by a
    /// signal, `_exit` or a crash loses nothing, and the next process that opens the suite rebuilds the file.
    static let exitFlush: Void = {
        atexit { FileStore.flushAllBeforeExit() }
    }()

    /// Flushes every suite and waits for its backup copy, then every other store an adapter uses
    /// (``OpenStores``); returns the first failure.
    ///
    /// The other failures are reported; at exit, every one is, as the process ends without those writes.
    /// `starting` hears each suite's name before it is flushed.
    @discardableResult
    static func flushAllBeforeExit(atExit: Bool = true, starting: (String) -> Void = { _ in }) -> DefaultsError? {
        // From here on, no background work starts (a check of a file could be ended midway, while it preserves a
        // damaged file, say, and leave a partial copy behind), and every write is flushed before it returns: an
        // `atexit` handler registered before the library's first use runs after this flush.
        if atExit { BackgroundWork.stop() }
        var first: DefaultsError?
        for storage in all {
            starting(storage.name)
            do {
                try storage.flush()
            } catch {
                if atExit {
                    // What is in the journal outlives the process; what could not be appended to it does not.
                    let lost = storage.appending.withLock { !$0.unappended.isEmpty }
                    storage.report(
                        .writeFailed,
                        key: nil,
                        error.description
                            + (lost
                                ? "; writes that could not be made durable are lost at exit"
                                : "; the writes stay in the journal, and the next program to open the suite writes "
                                    + "them to the file")
                    )
                } else if first != nil {
                    storage.report(.writeFailed, key: nil, "\(error.description); the writes are kept")
                }
                first = first ?? error
            }
            storage.finishBackgroundWork()
        }
        return OpenStores.flushAll(atExit: atExit, after: first, starting: starting)
    }
}
#endif
