import Foundation

/// A store over any `UserDefaults` instance, written through: every batch is synchronized before it returns,
/// because Foundation on Linux writes nothing otherwise, not even at exit.
///
/// Foundation does not tell which file an instance uses, so this store goes through Foundation and has
/// Foundation's limits across processes: no lock, in-place rewrites, stale reads, and no news of other
/// processes' changes. Prefer ``FileStore`` (what `DefaultsAdapter(suiteName:)` and `.standard` use) for a
/// suite of your own.
///
/// ## Usage
/// ```swift
/// let store = UserDefaultsStore(UserDefaults(suiteName: "group.com.example.shared")!)
/// let defaults = DefaultsAdapter(store: store, keyStore: DefaultsKeys())
/// ```
public final class UserDefaultsStore: DefaultsStore, @unchecked Sendable {
    // `UserDefaults` is not Sendable: every call into `defaults` happens while holding `foundationLock`.
    private let defaults: UserDefaults

    /// The name diagnostics use, `"UserDefaults instance"` unless given.
    public let name: String
    /// Announces the writes made through this store; Foundation tells nothing of other writes.
    public let changes = DefaultsStoreChanges()

    /// Serializes TypedDefaults' calls into Foundation, and so makes each batch-and-synchronize atomic with
    /// respect to the others in this process.
    private static let foundationLock = NSLock()

    /// Keys that Foundation's own argument domain answers for, with raw strings.
    ///
    /// TypedDefaults parses launch arguments itself (typed, negative numbers included), so it reads the
    /// stored value around that domain.
    private static let foundationArgumentKeys = Set(
        UserDefaults.standard.volatileDomain(forName: UserDefaults.argumentDomain).keys
    )

    /// A store over `defaults`; `name` appears in diagnostics.
    public init(_ defaults: UserDefaults, name: String = "UserDefaults instance") {
        self.defaults = defaults
        self.name = name
    }

    /// The instance's value for `key`, including values that show through from Foundation's other domains
    /// (`.GlobalPreferences`, `ByHost` files, registered defaults); `nil` for an object that is not a
    /// property-list value, with a diagnostic.
    public func value(forKey key: String) -> PropertyListValue? {
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

    /// The values the instance's own file holds (and registered defaults: Foundation does not tell them
    /// apart), without those showing through from other domains.
    public func snapshot() -> [String: PropertyListValue] {
        Self.withFoundation { storedValues() }
    }

    /// Applies the batch and synchronizes it, with every other batch of this process's `UserDefaultsStore`s
    /// held back meanwhile; other processes do not take part (Foundation takes no lock).
    public func apply(_ batch: DefaultsBatch) throws(DefaultsError) -> Bool {
        try batch.checkStorable()
        return try Self.withFoundation { () throws(DefaultsError) -> Bool in
            // Only the values the batch looks at are read: the whole domain costs a copy of it.
            var values: [String: PropertyListValue]
            if batch.involvesAllValues {
                values = storedValues()
            } else {
                values = [:]
                let keys = Set(batch.writtenKeys).union(batch.expectedKeys)
                for key in keys { values[key] = currentValue(forKey: key) }
            }
            guard let changed = batch.apply(to: &values) else { return false }
            for change in changed {
                if let value = change.newValue {
                    defaults.set(value.foundationObject, forKey: change.key)
                } else {
                    defaults.removeObject(forKey: change.key)
                }
            }
            let written = batch.writtenKeys
            try synchronize(key: written.count == 1 ? written[0] : nil)
            changes.publish(changed)
            return true
        }
    }

    /// Every value the instance stores; call while holding the lock.
    private func storedValues() -> [String: PropertyListValue] {
        storedKeys().reduce(into: [:]) { values, key in values[key] = currentValue(forKey: key) }
    }

    private func currentValue(forKey key: String) -> PropertyListValue? {
        defaults.object(forKey: key).flatMap(PropertyListValue.init(foundationObject:))
    }

    /// Batches are synchronized as they are applied.
    public func flush() {}

    /// The keys the instance's own file holds, and any registered with `register(defaults:)` (an instance
    /// does not tell its domain's name); values showing through from `.GlobalPreferences`, `ByHost` and
    /// `/usr/local/etc` files are left out.
    private func storedKeys() -> Set<String> {
        Set(defaults.dictionaryRepresentation().keys)
    }

    private func synchronize(key: String?) throws(DefaultsError) {
        guard defaults.synchronize() else {
            throw .writeFailed(
                suite: name,
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
