import Foundation

/// Every store of the program's own that an adapter was made over (one on a database server, say), while
/// anyone uses it, so that its coalesced writes are flushed with the suites': by ``DefaultsShutdown``, when
/// the process exits normally, and on Linux before SIGTERM, SIGINT or SIGHUP end it by their default action.
///
/// Suites are not listed here: their stores keep registries of their own, which flush them the same way.
enum OpenStores {
    /// An entry that does not keep its store alive: a store nobody uses any more has nothing left to flush.
    private struct Entry: Sendable {
        weak var store: (any DefaultsStore)?
    }

    private static let entries = Locked<[ObjectIdentifier: Entry]>([:])

    /// Lists `store`, unless it is a suite's store or holds nothing a flush could lose.
    static func remember(_ store: any DefaultsStore) {
        if store is UserDefaultsStore || store is InMemoryStore || store is UnavailableStore { return }
        #if !TYPED_DEFAULTS_FOUNDATION_STORAGE
        if store is FileStore { return }
        #endif
        entries.withLock { entries in
            entries = entries.filter { $0.value.store != nil }
            entries[ObjectIdentifier(store)] = Entry(store: store)
        }
        _ = exitFlush
    }

    /// Every listed store still in use.
    static var all: [any DefaultsStore] {
        entries.withLock { $0.values.compactMap(\.store) }
    }

    /// Flushes every listed store, even when one fails.
    ///
    /// Returns the first failure, `earlier` if there was one, and reports the others (at exit, every one: the
    /// process ends without those writes). `starting` hears each store's name first.
    static func flushAll(
        atExit: Bool,
        after earlier: DefaultsError? = nil,
        starting: (String) -> Void = { _ in }
    ) -> DefaultsError? {
        flush(all, atExit: atExit, after: earlier, starting: starting)
    }

    /// Flushes `stores` as ``flushAll(atExit:after:starting:)`` flushes the listed ones.
    static func flush(
        _ stores: [any DefaultsStore],
        atExit: Bool,
        after earlier: DefaultsError? = nil,
        starting: (String) -> Void = { _ in }
    ) -> DefaultsError? {
        var first = earlier
        for store in stores {
            starting(store.name)
            do {
                try store.flush()
            } catch {
                if atExit || first != nil {
                    let consequence = atExit ? "pending writes are lost at exit" : "the writes are kept"
                    let diagnostic = DefaultsDiagnostic(
                        kind: .writeFailed,
                        suite: store.name,
                        key: nil,
                        message: "\(error.description); \(consequence)"
                    )
                    DefaultsDiagnostics.report(diagnostic, oncePerProcess: false)
                }
                first = first ?? error
            }
        }
        return first
    }

    /// The exit flush, set up when the first store is listed.
    ///
    /// On Linux it is the suites' own, which flushes these stores too and also covers the shutdown signals.
    private static let exitFlush: Void = {
        #if TYPED_DEFAULTS_FOUNDATION_STORAGE
        atexit {
            BackgroundWork.stop()
            _ = OpenStores.flushAll(atExit: true)
        }
        #else
        _ = FileStore.exitFlush
        #endif
    }()
}
