import Foundation

/// A store over a `UserDefaults` instance: what `Defaults` and suites by name use on Apple platforms, and a
/// way to reach any instance elsewhere.
///
/// On Apple platforms the system (`cfprefsd`) keeps the values: the app, its extensions (through an app
/// group's suite), `@AppStorage`, Settings bundles and `defaults read` all see the same ones, and the system
/// makes them durable and merges other processes' writes. Changes made by other processes reach observers
/// through key-value observing of the keys observed one by one.
///
/// Foundation on Linux writes nothing unless asked, so there every batch is synchronized before `apply`
/// returns; it takes no lock across processes, rewrites files in place and tells nothing of other processes'
/// writes. Prefer ``FileStore`` (what suites by name use on Linux) for a suite of your own there.
///
/// Every store over the same suite name in a process is the same object, so observers of one adapter hear the
/// writes of all.
///
/// ## Usage
/// ```swift
/// let shared = try UserDefaultsStore.suite("group.com.example.shared")   // an app group, on Apple platforms
/// let defaults = DefaultsAdapter(store: shared, keyStore: DefaultsKeys())
/// ```
public final class UserDefaultsStore: DefaultsStore, @unchecked Sendable {
    // `UserDefaults` is thread-safe (Apple documents it; CFPreferences locks on Linux) but not marked Sendable on
    // Linux. `announced` and `keyObserver` are only touched while holding `foundationLock`.
    let defaults: UserDefaults
    /// The domain whose values ``snapshot()`` returns (the suite's name, or the program's for `.standard`);
    /// `nil` for an instance whose domain is not known.
    private let domainName: String?

    /// The name diagnostics use: the suite's name, `"standard"`, or `"UserDefaults instance"` unless given.
    public let name: String
    /// Announces the writes made through this store and, on Apple platforms, other processes' changes of the
    /// keys observed one by one.
    public let changes: DefaultsStoreChanges

    /// Makes each batch atomic with respect to the others in this process: held while a batch reads the values it
    /// looks at, decides and queues its writes, and while anything reads through the queue.
    ///
    /// Never held across a Foundation call that can call out (`set`, `removeObject`, `synchronize`, which on
    /// Apple platforms call key-value observers and post notifications on the calling thread).
    private static let foundationLock = NSCondition()
    /// Batches' writes not yet made in Foundation; only used while holding `foundationLock`, which is signalled
    /// whenever a synchronization finishes.
    nonisolated(unsafe) private static var pending = PendingFoundationWrites()

    /// What observers were last told of each key observed one by one; only touched under `foundationLock`.
    var announced: [String: PropertyListValue?] = [:]
    /// Tells of other processes' changes (by key-value observing; nothing on Linux), used under `foundationLock`.
    var keyObserver: KeyValueObserver?
    /// Rechecks keys that key-value observing named, one at a time and outside Foundation's call.
    static let recheckQueue = DispatchQueue(label: "TypedDefaults.UserDefaultsStore.recheck")

    /// Keys that Foundation's own argument domain answers for, with raw strings.
    ///
    /// TypedDefaults parses launch arguments itself (typed, negative numbers included), so it reads the
    /// stored value around that domain.
    private static let foundationArgumentKeys = Set(
        UserDefaults.standard.volatileDomain(forName: UserDefaults.argumentDomain).keys
    )

    /// A store over `defaults`; `name` appears in diagnostics.
    ///
    /// Prefer ``suite(_:)`` or ``standard`` where they fit: they know the instance's domain, so ``snapshot()``
    /// leaves out values showing through from other domains, and they are shared within the process.
    public convenience init(_ defaults: UserDefaults, name: String = "UserDefaults instance") {
        self.init(defaults: defaults, name: name, domainName: nil)
    }

    private init(defaults: UserDefaults, name: String, domainName: String?) {
        self.defaults = defaults
        self.name = name
        self.domainName = domainName
        let relay = Locked<WeakStore>(WeakStore())
        changes = DefaultsStoreChanges { relay.withLock { $0.store }?.observedKeysChanged() }
        relay.withLock { $0.store = self }
    }

    private struct WeakStore: @unchecked Sendable {
        // Only read or written while holding the `Locked` that holds it.
        weak var store: UserDefaultsStore?
    }

    private static let suites = Locked<[String: UserDefaultsStore]>([:])

    /// Where tests keep suites: by suite name, or every suite (`.standard` too) in one directory; empty
    /// outside tests.
    ///
    /// Foundation on Linux reads `XDG_CONFIG_HOME` once, before `main`, and Foundation on Apple platforms not
    /// at all, so a test cannot move the config directory; but both keep a suite named by an absolute path in
    /// `<path>.plist`.
    struct TestLocations: Sendable {
        var suites: [String: String] = [:]
        var directory: String?

        func path(of name: String) -> String? {
            suites[name] ?? directory.map { $0 + "/" + name }
        }
    }

    static let testLocations = Locked(TestLocations())

    /// Keeps every suite opened by name afterwards, and `.standard` if not opened yet, in `directory` as
    /// `<name>.plist`, whatever the platform's own place: for a test's child processes, which must never
    /// touch the user's real settings.
    ///
    /// ```swift
    /// UserDefaultsStore.keepSuitesForTesting(in: temporaryDirectory.path)
    /// ```
    package static func keepSuitesForTesting(in directory: String) {
        testLocations.withLock { $0.directory = directory }
    }

    /// The store over `UserDefaults(suiteName: name)`, one per name in the process.
    ///
    /// Throws ``DefaultsError/invalidSuiteName(_:reason:)`` for a name Foundation would turn into a path
    /// outside its directory or into the global domain, or that Foundation refuses (on Apple platforms, the
    /// app's own bundle identifier: use ``standard``).
    ///
    /// ```swift
    /// let shared = try UserDefaultsStore.suite("group.com.example.shared")
    /// ```
    public static func suite(_ name: String) throws(DefaultsError) -> UserDefaultsStore {
        try SuiteName.validate(name)
        if name == Bundle.main.bundleIdentifier {
            throw .invalidSuiteName(
                name,
                reason: "it is the app's own domain: use Defaults or UserDefaultsStore.standard"
            )
        }
        // A program without a bundle identifier (a command-line tool) has its process's name as its domain.
        if Bundle.main.bundleIdentifier == nil, name == ProcessInfo.processInfo.processName { return standard }
        if let store = suites.withLock({ $0[name] }) { return store }
        let foundationName = testLocations.withLock { $0.path(of: name) } ?? name
        guard let defaults = UserDefaults(suiteName: foundationName) else {
            throw .invalidSuiteName(name, reason: "Foundation refuses it (is it the app's own bundle identifier?)")
        }
        let made = UserDefaultsStore(defaults: defaults, name: name, domainName: foundationName)
        return suites.withLock { suites in
            if let store = suites[name] { return store }
            suites[name] = made
            return made
        }
    }

    /// The store over `UserDefaults.standard`, the program's own domain.
    ///
    /// ```swift
    /// let defaults = DefaultsAdapter(store: UserDefaultsStore.standard, keyStore: DefaultsKeys())
    /// ```
    public static let standard: UserDefaultsStore = {
        let domain = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
        if let path = testLocations.withLock({ $0.path(of: domain) }), let defaults = UserDefaults(suiteName: path) {
            return UserDefaultsStore(defaults: defaults, name: "standard", domainName: path)
        }
        return UserDefaultsStore(defaults: .standard, name: "standard", domainName: domain)
    }()

    /// The instance's value for `key`, including values that show through from Foundation's other domains
    /// (the global domain, registered defaults); `nil` for an object that is not a property-list value, with a
    /// diagnostic.
    public func value(forKey key: String) -> PropertyListValue? {
        let (value, found): (PropertyListValue?, String?) = Self.withFoundation {
            if let queued = Self.pending.value(forKey: key, of: defaults) { return (queued, nil) }
            guard let object = storedObject(forKey: key) else { return (nil, nil) }
            return (PropertyListValue(foundationObject: object), "\(type(of: object))")
        }
        if value == nil, let found {
            DefaultsDiagnostics.report(
                DefaultsDiagnostic(
                    kind: .storedValueMismatch,
                    suite: name,
                    key: key,
                    message: "\(String(reflecting: key)) holds a \(found), which is not a property-list value; "
                        + "reading the key's default instead"
                ),
                oncePerProcess: true
            )
        }
        return value
    }

    /// The values of the instance's own domain, without those showing through from other domains (for an
    /// instance made with ``init(_:name:)``, registered defaults are included: Foundation does not tell them
    /// apart).
    public func snapshot() -> [String: PropertyListValue] {
        Self.withFoundation { storedValues() }
    }

    /// Applies the batch, atomically with respect to every other batch of this process's stores over the same
    /// `UserDefaults` instance (a suite by name and ``standard`` each have one).
    ///
    /// Other processes do not take part (Foundation takes no lock). Reads through the store see the batch's
    /// values once this returns; Foundation has them too, unless this was called while another thread was
    /// writing into the instance (or from inside Foundation's own call, by an observer of a write): that thread
    /// makes this batch's writes right after its own. On Linux the batch is synchronized before this returns, or
    /// by that thread.
    public func apply(_ batch: DefaultsBatch) throws(DefaultsError) -> Bool {
        try batch.checkStorable()
        let outcome = Self.withFoundation { () -> (PendingFoundationWrites.Turn, PendingFoundationWrites.Ticket)? in
            // Only the values the batch looks at are read: the whole domain costs a copy of it.
            var values: [String: PropertyListValue]
            if batch.involvesAllValues {
                values = storedValues()
            } else {
                values = [:]
                let keys = Set(batch.writtenKeys).union(batch.expectedKeys)
                for key in keys { values[key] = currentValue(forKey: key) }
            }
            guard let changed = batch.apply(to: &values) else { return nil }
            for change in changed {
                // Before Foundation is told: key-value observing of this very write must find nothing new.
                if announced.keys.contains(change.key) { announced[change.key] = change.newValue }
                Self.pending.append(key: change.key, value: change.newValue, into: defaults)
            }
            let ticket = Self.synchronizesEveryBatch ? Self.pending.synchronize(defaults) : 0
            // Announced under the lock, so observers hear batches in the order they were applied, and before
            // saving: a value Foundation cannot save stays set (and read back), so observers must hear of it
            // even when the save throws.
            changes.publish(changed)
            return (Self.pending.takeTurn(of: defaults), ticket)
        }
        guard let (turn, ticket) = outcome else { return false }
        let written = batch.writtenKeys
        try finish(
            turn,
            waitingFor: Self.synchronizesEveryBatch ? ticket : nil,
            key: written.count == 1 ? written[0] : nil
        )
        return true
    }

    /// Makes the queued writes if `turn` was given to this thread, or waits for their synchronization.
    ///
    /// Waits only with a `ticket` (on Linux), and only for another thread's turn. Throws if the synchronization
    /// failed.
    private func finish(
        _ turn: PendingFoundationWrites.Turn,
        waitingFor ticket: PendingFoundationWrites.Ticket?,
        key: String?
    ) throws(DefaultsError) {
        switch turn {
        case .given:
            try check(synchronized: takeTurn(), key: key)
        case .heldHere:
            // From inside Foundation's call: the turn's holder is this very call's caller.
            break
        case .heldElsewhere:
            // Only where Foundation calls nothing out of its writes, so the holder waits for no one.
            guard let ticket else { break }
            let synchronized = Self.withFoundation { () -> Bool in
                while true {
                    if let succeeded = Self.pending.synchronization(of: defaults, for: ticket) { return succeeded }
                    Self.foundationLock.wait()
                }
            }
            try check(synchronized: synchronized, key: key)
        }
    }

    /// Foundation on Linux writes nothing unless synchronized, not even at exit; on Apple platforms the
    /// system keeps what was set, and synchronizing would wait for it on every write.
    private static var synchronizesEveryBatch: Bool {
        #if canImport(Darwin)
        false
        #else
        true
        #endif
    }

    /// Has Foundation write every batch it was given (on Linux they already are).
    ///
    /// While another thread makes writes into this suite's `UserDefaults`, that thread synchronizes it once they
    /// are made.
    public func flush() throws(DefaultsError) {
        let (turn, ticket) = Self.withFoundation {
            let ticket = Self.pending.synchronize(defaults)
            return (Self.pending.takeTurn(of: defaults), ticket)
        }
        try finish(turn, waitingFor: Self.synchronizesEveryBatch ? ticket : nil, key: nil)
    }

    /// Makes the queued writes into this store's instance and synchronizes it if asked, in order, until nothing
    /// is left; for the thread that was given the instance's turn.
    ///
    /// No lock is held across Foundation's calls. Returns whether the instance was synchronized (the last time,
    /// if several), or `nil` if it was not.
    private func takeTurn() -> Bool? {
        var synchronized: Bool?
        var done: PendingFoundationWrites.Step?
        while let step = Self.withFoundation({ () -> PendingFoundationWrites.Step? in
            if case .synchronize? = done { Self.foundationLock.broadcast() }
            return Self.pending.step(of: defaults, after: done, succeeded: synchronized ?? true)
        }) {
            switch step {
            case .write(let key, let value?):
                defaults.set(value.foundationObject, forKey: key)
            case .write(let key, nil):
                defaults.removeObject(forKey: key)
            case .synchronize:
                synchronized = defaults.synchronize()
            }
            done = step
        }
        return synchronized
    }

    /// Every value of the domain, queued writes included; call while holding the lock.
    private func storedValues() -> [String: PropertyListValue] {
        var values: [String: PropertyListValue]
        if let domain = domainValues() {
            values = domain.compactMapValues(PropertyListValue.init(foundationObject:))
        } else {
            // The keys of the instance's own file and any registered with `register(defaults:)`; values showing
            // through from `.GlobalPreferences`, `ByHost` and `/usr/local/etc` files are left out.
            values = defaults.dictionaryRepresentation().keys
                .reduce(into: [:]) { values, key in
                    values[key] = storedObject(forKey: key).flatMap(PropertyListValue.init(foundationObject:))
                }
        }
        for (key, value) in Self.pending.values(of: defaults) { values[key] = value }
        return values
    }

    /// The domain's own values, without those of the argument, global and registration domains.
    private func domainValues() -> [String: Any]? {
        domainName.map { defaults.persistentDomain(forName: $0) ?? [:] }
    }

    /// The value a batch expects and observers are told of: what ``value(forKey:)`` reads, so that `modify` of
    /// a key Foundation's argument domain also holds compares the stored value, not the argument's raw string.
    func currentValue(forKey key: String) -> PropertyListValue? {
        if let queued = Self.pending.value(forKey: key, of: defaults) { return queued }
        return storedObject(forKey: key).flatMap(PropertyListValue.init(foundationObject:))
    }

    /// The instance's object for `key`, around Foundation's argument domain (queued writes left out).
    private func storedObject(forKey key: String) -> Any? {
        if Self.foundationArgumentKeys.contains(key) {
            return domainValues()?[key] ?? defaults.dictionaryRepresentation()[key]
        }
        return defaults.object(forKey: key)
    }

    /// Throws if Foundation said it could not save the suite, and the suite's file does not hold its values.
    private func check(synchronized: Bool?, key: String?) throws(DefaultsError) {
        guard synchronized != false || fileHoldsDomain() else {
            throw .writeFailed(
                suite: name,
                key: key,
                reason: "Foundation could not write the suite's file (is the config directory writable?); "
                    + "the value stays in memory and is written with the next successful write"
            )
        }
    }

    /// Whether the suite's own file holds its values.
    ///
    /// Foundation on Linux saves every suite of the process at once and says `false` when any of them failed,
    /// so a suite beside one that cannot be written looks at its own file before reporting a failure.
    private func fileHoldsDomain() -> Bool {
        #if canImport(Darwin)
        return false
        #else
        guard let domainName, let domain = domainValues() else { return false }
        let path: String
        if domainName.hasPrefix("/") {
            path = domainName + ".plist"
        } else {
            let environment = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"] ?? ""
            path = (environment.isEmpty ? NSHomeDirectory() + "/.config" : environment) + "/" + domainName + ".plist"
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            return domain.isEmpty && !FileManager.default.fileExists(atPath: path)
        }
        guard case .dictionary(let saved)? = PropertyListValue(propertyListData: data) else { return false }
        return saved.isIdentical(to: domain.compactMapValues(PropertyListValue.init(foundationObject:)))
        #endif
    }

    static func withFoundation<Result, Failure>(
        _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        foundationLock.lock()
        defer { foundationLock.unlock() }
        return try body()
    }

    /// Makes every store over a suite or `.standard` durable; for ``DefaultsShutdown/flushAll()-2ivyt``.
    static func flushAll() -> DefaultsError? {
        OpenStores.flush(suites.withLock({ Array($0.values) }) + [standard], atExit: false)
    }
}
