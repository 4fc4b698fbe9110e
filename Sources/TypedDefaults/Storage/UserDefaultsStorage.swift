import Foundation

/// An arbitrary `UserDefaults` instance, written through: every write is synchronized before it returns,
/// because Foundation on Linux writes nothing otherwise, not even at exit.
///
/// TypedDefaults cannot learn an instance's file from Foundation, so an adapter over one (other than
/// `.standard`) goes through Foundation and has Foundation's limits across processes: no lock, in-place
/// rewrites, stale reads. Suites opened by name use ``FileStorage`` instead.
final class UserDefaultsStorage: DefaultsStorage, @unchecked Sendable {
    // `UserDefaults` is not Sendable: every call into `defaults` happens while holding `foundationLock`.
    private let defaults: UserDefaults

    let suiteName: String
    /// Announces the writes made through TypedDefaults; Foundation tells nothing of other writes.
    let changes = ChangeHub()

    /// Serializes TypedDefaults' calls into Foundation, and so makes each write-and-synchronize atomic with
    /// respect to the others in this process.
    private static let foundationLock = NSLock()

    /// Keys that Foundation's own argument domain answers for, with raw strings.
    ///
    /// TypedDefaults parses launch arguments itself (typed, negative numbers included), so it reads the
    /// stored value around that domain.
    private static let foundationArgumentKeys = Set(
        UserDefaults.standard.volatileDomain(forName: UserDefaults.argumentDomain).keys
    )

    init(defaults: UserDefaults) {
        self.defaults = defaults
        self.suiteName = "UserDefaults instance"
    }

    func value(forKey key: String) -> PropertyListValue? {
        let (value, found): (PropertyListValue?, String?) = Self.withFoundation {
            let object =
                Self.foundationArgumentKeys.contains(key)
                ? defaults.dictionaryRepresentation()[key] : defaults.object(forKey: key)
            guard let object else { return (nil, nil) }
            return (PropertyListValue(foundationObject: object), "\(type(of: object))")
        }
        if value == nil, let found {
            DefaultsDiagnostics.report(
                DefaultsDiagnostic(
                    kind: .storedValueMismatch,
                    suite: suiteName,
                    key: key,
                    message: "\(String(reflecting: key)) holds a \(found), which is not a property-list value; "
                        + "reading the key's default instead"
                ),
                oncePerProcess: true
            )
        }
        return value
    }

    func hasValue(forKey key: String) -> Bool {
        Self.withFoundation {
            // Most keys asked about are absent, which `object(forKey:)` answers cheaply; a present value may
            // still be one that shows through from another file, which only the domain itself can tell.
            guard defaults.object(forKey: key) != nil || Self.foundationArgumentKeys.contains(key) else {
                return false
            }
            return storedKeys().contains(key)
        }
    }

    func setValue(_ value: PropertyListValue?, forKey key: String) throws(DefaultsError) {
        try Self.withFoundation { () throws(DefaultsError) in try store(value, forKey: key) }
    }

    func removeAll() throws(DefaultsError) {
        try Self.withFoundation { () throws(DefaultsError) in
            let announce = changes.hasObservers && !Propagation.isSuppressed
            var removed: [StoredChange] = []
            for key in storedKeys() {
                if announce, let old = currentValue(forKey: key) {
                    removed.append(StoredChange(key: key, oldValue: old, newValue: nil))
                }
                defaults.removeObject(forKey: key)
            }
            try synchronize(key: nil)
            changes.publish(removed)
        }
    }

    func modify(
        _ key: String,
        _ transform: (PropertyListValue?) throws(DefaultsError) -> PropertyListValue?
    ) throws(DefaultsError) {
        let current = Self.withFoundation { currentValue(forKey: key) }
        try ReadModifyWrite.run(suite: suiteName, key: key, from: current, transform) {
            expected,
            new throws(DefaultsError) in
            try Self.withFoundation { () throws(DefaultsError) -> PropertyListValue?? in
                let found = currentValue(forKey: key)
                guard found.isIdentical(to: expected) else { return .some(found) }
                try store(new, forKey: key)
                return .none
            }
        }
    }

    func allValues() -> [String: PropertyListValue] {
        Self.withFoundation { storedValues() }
    }

    func modifyAll(
        _ transform: (inout [String: PropertyListValue]) throws(DefaultsError) -> Void
    ) throws(DefaultsError) {
        try ReadModifyWrite.run(suite: suiteName, key: nil, from: allValues(), inPlace: transform) {
            expected,
            new throws(DefaultsError) in
            try Self.withFoundation { () throws(DefaultsError) -> [String: PropertyListValue]? in
                let before = storedValues()
                guard before.isIdentical(to: expected) else { return before }
                for change in before.changes(to: new) { try store(change.newValue, forKey: change.key) }
                return nil
            }
        }
    }

    /// Every value the instance stores; call while holding the lock.
    private func storedValues() -> [String: PropertyListValue] {
        storedKeys().reduce(into: [:]) { values, key in values[key] = currentValue(forKey: key) }
    }

    private func currentValue(forKey key: String) -> PropertyListValue? {
        defaults.object(forKey: key).flatMap(PropertyListValue.init(foundationObject:))
    }

    /// Writes and synchronizes one value, and announces it if it changed; call while holding the lock.
    private func store(_ value: PropertyListValue?, forKey key: String) throws(DefaultsError) {
        let announce = changes.hasObservers && !Propagation.isSuppressed
        let old = announce ? currentValue(forKey: key) : nil
        if let value {
            defaults.set(value.foundationObject, forKey: key)
        } else {
            defaults.removeObject(forKey: key)
        }
        try synchronize(key: key)
        if announce, old != value { changes.publish([StoredChange(key: key, oldValue: old, newValue: value)]) }
    }

    /// Writes are synchronized as they happen.
    func flush() {}

    func scheduleFlush(within delay: Duration) {}

    func finishBackgroundWork() {}

    func checkFile() {}

    /// The keys the instance's own file holds, and any registered with `register(defaults:)` (an instance
    /// does not tell its domain's name); values showing through from `.GlobalPreferences`, `ByHost` and
    /// `/usr/local/etc` files are left out.
    private func storedKeys() -> Set<String> {
        Set(defaults.dictionaryRepresentation().keys)
    }

    private func synchronize(key: String?) throws(DefaultsError) {
        guard defaults.synchronize() else {
            throw .writeFailed(
                suite: suiteName,
                key: key,
                reason: "Foundation could not write the suite's file (is the config directory writable?); "
                    + "the value stays in memory and is written with the next successful write"
            )
        }
    }

    private static func withFoundation<Result, Failure>(
        _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        foundationLock.lock()
        defer { foundationLock.unlock() }
        return try body()
    }
}
