import Foundation

/// Every store of the program's own that an adapter was made over (one on a database server, say), while
/// anyone uses it, so that its coalesced writes are flushed with the suites': by ``DefaultsShutdown``, and when
/// the process exits normally.
///
/// Suites are not listed here: their stores keep registries of their own, which flush them the same way.
enum OpenStores {
    /// An entry that does not keep its store alive: a store nobody uses any more has nothing left to flush.
    private struct Entry: Sendable {
        weak var store: (any DefaultsStore)?
    }

    /// The entries, and how many there were after the last sweep of those whose store is gone.
    private static let entries = Locked<(entries: [ObjectIdentifier: Entry], swept: Int)>(([:], 0))

    /// Lists `store`, unless it is a suite's store or holds nothing a flush could lose.
    static func remember(_ store: any DefaultsStore) {
        if PlatformStore.flushesItself(store) { return }
        entries.withLock { list in
            // Swept when the list has doubled since the last sweep, so that listing n stores costs O(n) in all.
            if list.entries.count >= 2 * max(list.swept, 8) {
                list.entries = list.entries.filter { $0.value.store != nil }
                list.swept = list.entries.count
            }
            list.entries[ObjectIdentifier(store)] = Entry(store: store)
        }
        PlatformStore.storeOfTheProgramListed()
    }

    /// Every listed store still in use.
    static var all: [any DefaultsStore] {
        entries.withLock { $0.entries.values.compactMap(\.store) }
    }

    /// How many entries the list holds, those of stores gone included; for tests.
    static var entryCount: Int {
        entries.withLock { $0.entries.count }
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
        // A store's flush that calls `DefaultsShutdown.flushAll()` again is already being flushed: the inner
        // call leaves the stores to the outer one, rather than recurse without end.
        let thread = ThreadContext.current(create: true)
        if thread?.pointee.flushingAll == true { return earlier }
        thread?.pointee.flushingAll = true
        defer { thread?.pointee.flushingAll = false }
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
}
