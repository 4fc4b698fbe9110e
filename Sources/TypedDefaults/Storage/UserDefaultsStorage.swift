import Foundation

/// A suite on Foundation's `UserDefaults`, written through: every write is synchronized before it returns,
/// because Foundation on Linux writes nothing otherwise, not even at exit.
final class UserDefaultsStorage: DefaultsStorage, @unchecked Sendable {
    // `UserDefaults` is not Sendable: every call into `defaults` happens while holding `foundationLock`.
    private let defaults: UserDefaults

    /// The persistent domain's name when it is known: the suite's name, or the program's for `.standard`.
    private let domainName: String?

    let suiteName: String

    /// Serializes TypedDefaults' calls into Foundation, and so makes each write-and-synchronize atomic with
    /// respect to the others in this process.
    private static let foundationLock = NSLock()

    /// The name Foundation gives `.standard`'s domain on Linux: the bundle identifier, or else the executable's
    /// name (so a renamed binary starts from empty settings).
    static let standardDomainName = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName

    /// Keys that Foundation's own argument domain answers for, with raw strings.
    ///
    /// TypedDefaults parses launch arguments itself (typed, negative numbers included), so it reads the
    /// stored value around that domain.
    private static let foundationArgumentKeys = Set(
        UserDefaults.standard.volatileDomain(forName: UserDefaults.argumentDomain).keys
    )

    init(defaults: UserDefaults) {
        self.defaults = defaults
        if defaults === UserDefaults.standard {
            domainName = Self.standardDomainName
            suiteName = "standard"
        } else {
            domainName = nil
            suiteName = "UserDefaults instance"
        }
    }

    /// Opens the suite `suiteName` in Foundation's config directory, or in `directory`.
    ///
    /// Foundation (CFPreferences) treats a domain name that is an absolute path as the path of the file
    /// without `.plist`; a suite in a directory of the caller's choosing is opened that way.
    init(suiteName: String, directory: URL?) throws(DefaultsError) {
        try SuiteName.validate(suiteName, inDefaultDirectory: directory == nil)
        let domain = try directory.map { directory throws(DefaultsError) in
            try SuiteName.validatedPath(of: directory) + "/" + suiteName
        }
        guard let defaults = UserDefaults(suiteName: domain ?? suiteName) else {
            throw .invalidSuiteName(suiteName, reason: "Foundation refused to open it")
        }
        self.defaults = defaults
        self.domainName = domain ?? suiteName
        self.suiteName = suiteName
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
        try Self.withFoundation { () throws(DefaultsError) in
            if let value {
                defaults.set(value.foundationObject, forKey: key)
            } else {
                defaults.removeObject(forKey: key)
            }
            try synchronize(key: key)
        }
    }

    func removeAll() throws(DefaultsError) {
        try Self.withFoundation { () throws(DefaultsError) in
            for key in storedKeys() { defaults.removeObject(forKey: key) }
            try synchronize(key: nil)
        }
    }

    /// The keys this suite's own file holds.
    ///
    /// Reads also see values that show through from `.GlobalPreferences`, `ByHost` and `/usr/local/etc`
    /// files; those are not the suite's and are left out. For a `UserDefaults` instance whose domain is
    /// unknown, values registered with `register(defaults:)` count too.
    private func storedKeys() -> Set<String> {
        let domain =
            domainName.flatMap { defaults.persistentDomain(forName: $0) } ?? defaults.dictionaryRepresentation()
        return Set(domain.keys)
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
