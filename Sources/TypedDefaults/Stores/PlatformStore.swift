import Foundation

/// The platform's own stores: the one place that knows which concrete store keeps a suite.
///
/// On Apple platforms (and on Linux with `TYPED_DEFAULTS_FOUNDATION_STORAGE`) suites live in Foundation's
/// `UserDefaults` (``UserDefaultsStore``); on Linux in the library's own files (``FileStore``). The adapter's
/// initializers, the exit flush and ``DefaultsShutdown`` ask here, so nothing above the stores names one.
enum PlatformStore {
    /// The store of `UserDefaults.standard`: on Linux a file like any suite's, or a store whose writes fail with
    /// the reason when there is no place for that file.
    static func standard() -> any DefaultsStore {
        #if TYPED_DEFAULTS_FOUNDATION_STORAGE
        UserDefaultsStore.standard
        #else
        do {
            return try FileStore.standard()
        } catch {
            return UnavailableStore(name: "standard", reason: error)
        }
        #endif
    }

    /// The store of a `UserDefaults` instance: the platform's own for `.standard`, Foundation otherwise.
    static func store(of defaults: UserDefaults) -> any DefaultsStore {
        defaults === UserDefaults.standard ? standard() : UserDefaultsStore(defaults)
    }

    #if TYPED_DEFAULTS_FOUNDATION_STORAGE
    /// The suite named `name`; throws for a name Foundation would misuse or refuses.
    static func suite(_ name: String) throws(DefaultsError) -> any DefaultsStore {
        try UserDefaultsStore.suite(name)
    }
    #else
    /// The suite named `name`, in `directory` or where Foundation keeps suites; throws for a bad name or
    /// directory.
    static func suite(_ name: String, directory: URL? = nil) throws(DefaultsError) -> any DefaultsStore {
        try FileStore.suite(name, directory: directory)
    }
    #endif

    /// The suite named `name`, or a store whose reads return nothing and whose writes fail with the reason the
    /// suite cannot be opened.
    static func suiteOrUnavailable(_ name: String) -> any DefaultsStore {
        do {
            return try suite(name)
        } catch {
            return UnavailableStore(name: name, reason: error)
        }
    }

    /// Whether `store` is flushed at exit without ``OpenStores`` listing it: a suite's store, which its own
    /// registry flushes, or one that holds nothing a flush could lose.
    static func flushesItself(_ store: any DefaultsStore) -> Bool {
        if store is UserDefaultsStore || store is InMemoryStore || store is UnavailableStore { return true }
        #if TYPED_DEFAULTS_FOUNDATION_STORAGE
        return false
        #else
        return store is FileStore
        #endif
    }

    /// Whether `store` makes each write durable against the death of the process when `apply` returns, and keeps
    /// its file current by itself: a suite's store on Linux, so that adapters arrange no flushes of it.
    static func writesDurably(_ store: any DefaultsStore) -> Bool {
        #if TYPED_DEFAULTS_FOUNDATION_STORAGE
        return false
        #else
        return store is FileStore
        #endif
    }

    /// Makes sure the stores ``OpenStores`` lists are flushed at a normal exit, once one is listed.
    static func storeOfTheProgramListed() {
        #if TYPED_DEFAULTS_FOUNDATION_STORAGE
        _ = exitFlush
        #else
        _ = FileStore.exitFlush
        #endif
    }

    #if TYPED_DEFAULTS_FOUNDATION_STORAGE
    /// The listed stores' exit flush; the system keeps Foundation's suites by itself.
    private static let exitFlush: Void = {
        atexit {
            BackgroundWork.stop()
            _ = OpenStores.flushAll(atExit: true)
        }
    }()
    #endif

    /// Makes every pending write of every suite and every listed store durable (see ``DefaultsShutdown``);
    /// returns the first failure, and reports the others.
    static func flushAll() -> DefaultsError? {
        #if TYPED_DEFAULTS_FOUNDATION_STORAGE
        OpenStores.flushAll(atExit: false, after: UserDefaultsStore.flushAll())
        #else
        FileStore.flushAllBeforeExit(atExit: false)
        #endif
    }
}
