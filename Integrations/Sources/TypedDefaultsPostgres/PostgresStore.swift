import Foundation
import PostgresNIO
import TypedDefaults

/// A suite kept in PostgreSQL and shared live by every instance of a service: typed keys, `modify`, snapshots,
/// observation and `@Default` work over it as over a local suite.
///
/// Reads come from memory and never wait for the network. The store keeps its memory current with
/// `LISTEN`/`NOTIFY`, and catches up with the suite's version after every reconnect, so a change made while it
/// was disconnected is not missed. Writes coalesce like a local suite's and are committed when ``flush()``
/// returns; `modify` is one transaction that locks the suite's row, so it is exact across instances. While the
/// server is unreachable, reads keep the last values seen (from a copy on disk when the process started during
/// the outage), and writes retry for up to ``Options/retryLimit`` before failing with
/// ``DefaultsError/writeFailed(suite:key:reason:)``.
///
/// The store needs a database role that may use two tables, `typed_defaults` and `typed_defaults_suites`
/// (`SELECT`, `INSERT`, `UPDATE`), and `LISTEN`; it creates the tables when they are missing, which takes
/// `CREATE` on the schema once.
///
/// ## Usage
/// ```swift
/// import TypedDefaults
/// import TypedDefaultsPostgres
///
/// extension DefaultsKeys {
///     var maintenance: Key<Bool> { .init("maintenance", default: false) }
///     var requestLimit: Key<Int> { .init("requestLimit", default: 100) }
/// }
///
/// let store = try PostgresStore(url: "postgres://app@db.internal:5432/settings", suite: "checkout")
/// let fleet = DefaultsAdapter(store: store, keyStore: DefaultsKeys())
/// fleet[\.maintenance] = true                 // every instance sees it within milliseconds
/// try fleet.modify(\.requestLimit) { $0 += 10 }   // exact, whoever else modifies it
/// ```
public final class PostgresStore: DefaultsStore {
    /// How the store waits for the server, and where it keeps its local copy.
    ///
    /// ## Usage
    /// ```swift
    /// var options = PostgresStore.Options()
    /// options.retryLimit = .seconds(5)
    /// let store = try PostgresStore(url: url, suite: "checkout", options: options)
    /// ```
    public struct Options: Sendable {
        /// How long a flush or `modify` keeps trying through an outage before it throws; 30 seconds.
        public var retryLimit: Duration = .seconds(30)
        /// How long one attempt to connect may take, and how long creating the store waits for the server
        /// before it serves the local copy; 5 seconds.
        public var connectTimeout: Duration = .seconds(5)
        /// How long the server may take to answer one statement before the connection is taken for lost
        /// (across a network partition, the socket stays open and silent); 10 seconds.
        public var queryTimeout: Duration = .seconds(10)
        /// Where the copy of the last values seen is kept; `nil` (the default) for `$XDG_CACHE_HOME`, else
        /// `$HOME/.cache`, in a folder `TypedDefaultsPostgres`.
        public var localCopyDirectory: URL?

        /// The defaults.
        public init() {}
    }

    /// The suite's name.
    public var name: String { link.suite }
    /// Announces every change, this instance's and (as they arrive) every other instance's.
    public let changes: DefaultsStoreChanges
    private let link: SuiteLink

    /// Connects to the server `configuration` describes (TLS and credentials included) and serves `suite` from it.
    ///
    /// Waits up to ``Options/connectTimeout`` for the server; when it cannot be reached, the store serves the
    /// last values this machine saw, reports a ``DefaultsDiagnostic/Kind/storeUnavailable`` diagnostic, and
    /// connects in the background. Throws ``DefaultsError/invalidSuiteName(_:reason:)`` for an empty name or one
    /// with a NUL character, which PostgreSQL's text cannot hold.
    ///
    /// ```swift
    /// let configuration = PostgresConnection.Configuration(
    ///     host: "db.internal", username: "app", password: secret, database: "settings", tls: .require(tlsContext)
    /// )
    /// let store = try PostgresStore(configuration: configuration, suite: "checkout")
    /// ```
    public init(
        configuration: PostgresConnection.Configuration,
        suite: String,
        options: Options = Options()
    ) throws(DefaultsError) {
        if suite.isEmpty { throw .invalidSuiteName(suite, reason: "the name is empty") }
        if suite.utf8.contains(0) {
            throw .invalidSuiteName(suite, reason: "PostgreSQL cannot store a NUL character in text")
        }
        if suite.utf8.count > Self.longestName {
            throw .invalidSuiteName(
                suite,
                reason: "it is longer than \(Self.longestName) bytes, more than the table's index can hold"
            )
        }
        changes = DefaultsStoreChanges()
        link = SuiteLink(suite: suite, configuration: configuration, options: options, changes: changes)
        link.start()
    }

    /// Connects to the server at a `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE` address, without TLS, and
    /// serves `suite` from it.
    ///
    /// Throws ``PostgresURLError`` for an address it cannot read, or ``DefaultsError`` as
    /// ``init(configuration:suite:options:)`` does. For TLS, pass a configuration.
    ///
    /// ```swift
    /// let store = try PostgresStore(url: "postgres://app@127.0.0.1:5432/settings", suite: "checkout")
    /// ```
    public convenience init(url: String, suite: String, options: Options = Options()) throws {
        try self.init(configuration: PostgresURLError.configuration(url), suite: suite, options: options)
    }

    deinit {
        link.stop()
    }

    /// The value reads see: the last committed one, or this instance's own write not yet committed.
    public func value(forKey key: String) -> PropertyListValue? {
        link.memory.withLock { $0.values[key] }
    }

    /// The longest suite or key name, in UTF-8 bytes: PostgreSQL's index on (suite, key) holds at most about
    /// 2,700 bytes of both.
    static let longestName = 1_024

    /// Every value reads see, as one state.
    public func snapshot() -> [String: PropertyListValue] {
        link.memory.withLock { $0.values }
    }

    /// Applies `batch` in memory, to be committed by the next ``flush()``; a batch with expectations is
    /// committed at once, in one transaction with the writes waiting before it.
    public func apply(_ batch: DefaultsBatch) throws(DefaultsError) -> Bool {
        try batch.checkStorable()
        // Refused here, with the key's name, rather than by the server at the commit, which would fail the writes
        // of every other key committed with it.
        for key in batch.writes.keys where key.utf8.count > Self.longestName {
            throw .valueNotStorable(
                key: String(key.prefix(40)) + "…",
                type: "PropertyListValue",
                reason: "the key's name is longer than \(Self.longestName) bytes, more than the table's index can hold"
            )
        }
        guard batch.expected != nil else {
            link.memory.withLock { memory in
                if let changed = memory.applyLocally(batch) { changes.publish(changed) }
            }
            return true
        }
        // Expectations that fail here fail at the server too: the caller read what memory holds.
        guard batch.holds(for: snapshot()) else { return false }
        let committed = try link.commit(batch, key: batch.writes.count == 1 ? batch.writes.keys.first : nil)
        if !link.isForkedChild { link.saveCopy() }
        return committed
    }

    /// Commits every write applied before the call; retries through an outage for up to
    /// ``Options/retryLimit``, then throws ``DefaultsError/writeFailed(suite:key:reason:)`` and keeps the writes
    /// for the next flush.
    public func flush() throws(DefaultsError) {
        if !link.memory.withLock({ $0.outbox.isEmpty }) { _ = try link.commit(nil, key: nil) }
        // In a child forked without exec the copy is the parent's to keep (its lock may be held there).
        if !link.isForkedChild { link.saveCopy() }
    }

    /// `postgres://` and the server, database and suite: never the password.
    public var description: String { "postgres://\(link.server) suite \(String(reflecting: name))" }
}

/// A `postgres://` address that ``PostgresStore/init(url:suite:options:)`` cannot read.
///
/// The address in the message has its password removed.
///
/// ## Usage
/// ```swift
/// do { _ = try PostgresStore(url: "mysql://x", suite: "s") } catch let error as PostgresURLError { print(error) }
/// ```
public struct PostgresURLError: Error, Sendable, CustomStringConvertible {
    /// What is wrong with the address.
    public let reason: String

    /// The address without its password, and what is wrong with it.
    public var description: String { "cannot use the PostgreSQL address: \(reason)" }

    static func configuration(_ url: String) throws(PostgresURLError) -> PostgresConnection.Configuration {
        guard let components = URLComponents(string: url) else {
            throw PostgresURLError(reason: "it is not a URL")
        }
        var shown = components
        if shown.password != nil { shown.password = "***" }
        let address = shown.string ?? "the address"
        guard components.scheme == "postgres" || components.scheme == "postgresql" else {
            throw PostgresURLError(reason: "\(address) does not start with postgres://")
        }
        guard let host = components.host, !host.isEmpty else {
            throw PostgresURLError(reason: "\(address) names no host")
        }
        guard let user = components.user, !user.isEmpty else {
            throw PostgresURLError(reason: "\(address) names no user (postgres://USER@HOST/DATABASE)")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        return PostgresConnection.Configuration(
            host: host,
            port: components.port ?? 5432,
            username: user.removingPercentEncoding ?? user,
            password: components.password.map { $0.removingPercentEncoding ?? $0 },
            database: database.isEmpty ? nil : database,
            tls: .disable
        )
    }
}
