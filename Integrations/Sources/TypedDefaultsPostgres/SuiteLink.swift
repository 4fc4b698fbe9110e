import Foundation
import PostgresNIO
import Synchronization
import TypedDefaults

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One store's connection to its suite on the server: the conversations it has there (commits, catch-ups,
/// reconnects), the thread that keeps it connected and current, and the memory the store's reads come from.
///
/// Threads: callers of `flush` and `apply` talk to the server on their own thread, under ``conversation``;
/// notifications arrive on the event loop and only touch memory; the worker thread reconnects, catches up when
/// a notification cannot be applied as it is, and saves the local copy. No user code runs on the event loop
/// (it only publishes, which queues), and diagnostics, which call the user's handler, go out from the worker
/// or the caller's thread with no lock held.
final class SuiteLink: Sendable {
    let suite: String
    let changes: DefaultsStoreChanges
    let memory: Mutex<SuiteMemory>
    let options: PostgresStore.Options
    /// `host:port/database`, for messages: never the user name's password.
    let server: String
    let copy: LocalCopy
    private let configuration: PostgresConnection.Configuration
    private let password: String?
    /// The notification channel: a digest of the suite's name, since a channel is an identifier.
    private let channel: String
    private let link = Mutex(Link())
    /// Held for each whole conversation with the server, so that two never interleave on the one connection
    /// (a transaction is a sequence of statements); held across network waits, never around user code.
    private let conversation = NSLock()
    /// Held while the local copy is written, so that an older state never overwrites a newer one.
    private let saving = NSLock()
    private let signal = WorkerSignal()
    /// Diagnostics found during a conversation, reported when it ends.
    private let queued = Mutex<[DefaultsDiagnostic]>([])
    /// The process that opened the store: a child forked from it without `exec` has neither its event loop nor
    /// its threads, so there the store refuses to talk to the server instead of waiting for good.
    private let owner = getpid()

    private struct Link: Sendable {
        var connection: PostgresConnection?
        var outageReported = false
        /// When the server was last found unreachable, while it still is: the retry limit counts from there, so
        /// that once an outage outlasts it, each write fails after one attempt instead of waiting it out again.
        var unreachableSince: ContinuousClock.Instant?
        var stopped = false
    }

    /// The event loop of every store: the library's own, so that a caller blocked on a reply is never on it.
    private static let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private static let logger: Logger = {
        var logger = Logger(label: "TypedDefaultsPostgres")
        logger.logLevel = .critical
        return logger
    }()
    private static let connectionIDs = Atomic<Int>(0)

    init(
        suite: String,
        configuration: PostgresConnection.Configuration,
        options: PostgresStore.Options,
        changes: DefaultsStoreChanges
    ) {
        self.suite = suite
        self.configuration = configuration
        self.password = configuration.password
        self.options = options
        self.changes = changes
        let endpoint =
            if let host = configuration.host { "\(host):\(configuration.port ?? 5432)" } else {
                configuration.unixSocketPath ?? "a connected channel"
            }
        server = "\(endpoint)/\(configuration.database ?? configuration.username)"
        channel = "typed_defaults_" + LocalCopy.digest(suite)
        copy = LocalCopy(
            server: endpoint,
            database: configuration.database ?? configuration.username,
            suite: suite,
            directory: options.localCopyDirectory
        )
        var memory = SuiteMemory()
        if let saved = copy.load() {
            memory.server = saved.values.mapValues(\.value)
            memory.values = memory.server
            memory.version = saved.version
            memory.head = saved.head
            memory.savedVersion = saved.version
        }
        self.memory = Mutex(memory)
    }

    /// Connects within the options' start-up wait, or reports that reads use the local copy, and starts the
    /// worker that keeps the store connected and current.
    func start() {
        do throws(LinkError) {
            try converse { () throws(LinkError) in
                _ = try connected(deadline: .now + options.connectTimeout)
            }
        } catch {
            reportOutage(error, atStart: true)
        }
        let thread = Thread { [self] in runWorker() }
        thread.name = "TypedDefaultsPostgres"
        thread.start()
    }

    /// Throws in a child forked without `exec`: the connection, its event loop and the worker are the parent's
    /// (the child has a copy of the socket, and no thread to answer on it), so a wait there would never end.
    func refuseInForkedChild(key: String?) throws(DefaultsError) {
        guard isForkedChild else { return }
        throw .writeFailed(
            suite: suite,
            key: key,
            reason: "this process was forked (without exec) from the one that opened the store, whose connection "
                + "it cannot use; open a PostgresStore of its own in the child"
        )
    }

    /// Whether this is a child forked without `exec` from the process that opened the store.
    var isForkedChild: Bool { getpid() != owner }

    func stop() {
        // In a forked child the event loop is gone: closing would only queue work nobody runs.
        guard !isForkedChild else { return }
        let connection = link.withLock { link in
            link.stopped = true
            return link.connection
        }
        signal.raise { $0.stopped = true }
        connection?.closeSoon()
    }

    // MARK: Commits

    /// Commits the writes waiting in memory, and `extra` (a batch with expectations) after them, in one
    /// transaction.
    ///
    /// Retries across an outage of up to the options' limit. Returns `false` when `extra`'s
    /// expectations do not hold at the server (memory is then caught up, so a retry sees the new values).
    func commit(_ extra: DefaultsBatch?, key: String?) throws(DefaultsError) -> Bool {
        try refuseInForkedChild(key: key)
        let deadline = (link.withLock { $0.unreachableSince } ?? .now) + options.retryLimit
        var delay = Duration.milliseconds(50)
        // A commit whose outcome a dropped connection hid: found out before anything is tried again, so that a
        // batch is never applied twice.
        var uncertain: Attempt?
        while true {
            do throws(LinkError) {
                return try converse { () throws(LinkError) -> Bool in
                    let connection = try connected(deadline: deadline)
                    if let attempt = uncertain {
                        let done = try isCommitted(attempt.id, on: connection)
                        uncertain = nil
                        if done {
                            settle(attempt, version: nil)
                            if attempt.extra != nil { return true }
                        }
                    }
                    return try commitOnce(extra, on: connection, uncertain: &uncertain)
                }
            } catch {
                let reason: String
                let busy: Bool
                switch error {
                case .unreachable(let why): (reason, busy) = (why, false)
                case .busy(let why): (reason, busy) = (why, true)
                case .refused(let why):
                    throw .writeFailed(suite: suite, key: key, reason: "\(server) refused it: \(why)")
                }
                guard ContinuousClock.now + delay < deadline else {
                    let outcome =
                        uncertain == nil
                        ? "nothing was committed"
                        : "the connection dropped while the server committed, so whether it did is unknown"
                    throw .writeFailed(
                        suite: suite,
                        key: key,
                        reason: busy
                            ? "\(server) stayed busy for \(options.retryLimit) (\(reason)); \(outcome)"
                            : "\(server) could not be reached for \(options.retryLimit) (\(reason)); \(outcome)"
                    )
                }
                Thread.sleep(forTimeInterval: delay.seconds)
                delay = min(delay * 2, .seconds(1))
            }
        }
    }

    private struct Attempt {
        let id: UUID
        let outbox: SuiteMemory.Outbox
        let extra: DefaultsBatch?
    }

    private func commitOnce(
        _ extra: DefaultsBatch?,
        on connection: PostgresConnection,
        uncertain: inout Attempt?
    ) throws(LinkError) -> Bool {
        let outbox = memory.withLock { $0.outbox }
        if outbox.isEmpty && extra == nil { return true }
        // BEGIN goes out with the first statement, not a round trip before it. Within the commit, the server
        // ends a statement that runs past the query timeout (its lock waits end at it: see ``connected``).
        let begun = send("BEGIN", on: connection)
        let limited = send(PostgresQuery(unsafeSQL: "SET LOCAL statement_timeout = \(statementLimit)"), on: connection)
        do throws(LinkError) {
            // The suite's row lock orders every commit to the suite, from any machine: the version read here is
            // the latest, and stays so until this transaction ends.
            let lock: PostgresQuery =
                "SELECT version, recent_batches[1] FROM typed_defaults_suites WHERE suite = \(suite) FOR UPDATE"
            var rows = try waitingForTheRow { () throws(LinkError) in try run(lock, on: connection) }
            _ = try wait(begun, timeout: patience).get()
            _ = try wait(limited, timeout: patience).get()
            if rows.isEmpty {
                try run(
                    """
                    INSERT INTO typed_defaults_suites (suite, version, recent_batches) VALUES (\(suite), 0, '{}')
                    ON CONFLICT (suite) DO NOTHING
                    """,
                    on: connection
                )
                rows = try waitingForTheRow { () throws(LinkError) in try run(lock, on: connection) }
            }
            let (version, head) = try decode((Int64, UUID?).self, rows.first)
            if memory.withLock({ $0.version != version || $0.head != head }) { try catchUp(on: connection) }
            let server = memory.withLock { $0.server }
            if let extra, extra.expected != nil {
                let current = memory.withLock { $0.valuesForExpectations(with: outbox) }
                guard extra.holds(for: current) else {
                    // Not waited for: the next statement on the connection runs after it, and fails if it did.
                    _ = send("ROLLBACK", on: connection)
                    return false
                }
            }
            var writes = outbox.writes.mapValues(\.value)
            var removesAll = outbox.removeAll != nil
            if let extra {
                if extra.removesAll {
                    writes = [:]
                    removesAll = true
                }
                for (key, value) in extra.writes { writes[key] = value }
            }
            var changed: [String: PropertyListValue?] = [:]
            if removesAll {
                for key in server.keys where writes[key] == nil { changed[key] = .some(nil) }
            }
            for (key, value) in writes where !server[key].isIdentical(to: value) { changed[key] = value }
            guard !changed.isEmpty else {
                try run("ROLLBACK", on: connection)
                settle(Attempt(id: UUID(), outbox: outbox, extra: extra), version: nil)
                return true
            }
            let (newVersion, overflow) = version.addingReportingOverflow(1)
            if overflow {
                throw LinkError.refused(
                    "the suite's version at the server is \(version), the largest a bigint holds, so no commit can "
                        + "follow it; setting typed_defaults_suites.version back (to 0) lets every instance reload"
                )
            }
            let id = UUID()
            let stored = changed.compactMapValues { $0 }
            let chunks = Self.chunks(of: stored)
            let removed = changed.filter { $0.value == nil }.map(\.key)
            // Values past a few megabytes go to the server in statements of their own, each well within the
            // server's statement limit, so that a large batch commits (still in one transaction) instead of
            // timing out whole and being sent again, whole, for good.
            for chunk in chunks.dropLast() {
                try run(
                    """
                    INSERT INTO typed_defaults (suite, key, value, version)
                    SELECT \(suite), w.key, w.value::jsonb, \(newVersion)
                    FROM unnest(\(chunk.keys)::text[], \(chunk.texts)::text[]) AS w(key, value)
                    ON CONFLICT (suite, key) DO UPDATE SET value = EXCLUDED.value, version = EXCLUDED.version
                    """,
                    on: connection
                )
            }
            let (keys, texts) = chunks.last ?? ([], [])
            // What the batch changed, for the others to apply version by version (their observers hear every
            // value); a batch too large for that is read from the values instead.
            let history = Self.historyText(of: changed)
            // One statement, one round trip: the (last) values, the removals (kept as rows without a value, so
            // that a catch-up sees them), and the suite's new version with this batch's id.
            let written = send(
                """
                WITH stored AS (
                    INSERT INTO typed_defaults (suite, key, value, version)
                    SELECT \(suite), w.key, w.value::jsonb, \(newVersion)
                    FROM unnest(\(keys)::text[], \(texts)::text[]) AS w(key, value)
                    ON CONFLICT (suite, key) DO UPDATE SET value = EXCLUDED.value, version = EXCLUDED.version
                ), removed AS (
                    UPDATE typed_defaults SET value = NULL, version = \(newVersion)
                    WHERE suite = \(suite) AND key = ANY(\(removed)::text[])
                ), logged AS (
                    INSERT INTO typed_defaults_history (suite, version, changes)
                    VALUES (\(suite), \(newVersion), \(history)::jsonb)
                    ON CONFLICT (suite, version) DO UPDATE SET changes = EXCLUDED.changes
                ), pruned AS (
                    DELETE FROM typed_defaults_history
                    WHERE suite = \(suite) AND version::numeric <= \(newVersion)::numeric - \(Self.recentBatches)
                ), advanced AS (
                    UPDATE typed_defaults_suites
                    SET version = \(newVersion), recent_batches = (\(id)::uuid || recent_batches)[1:\(Self.recentBatches)]
                    WHERE suite = \(suite)
                )
                SELECT 1
                """,
                on: connection
            )
            // COMMIT goes out behind the writes, without a round trip between; from here a dropped connection
            // leaves the outcome unknown until the batch's id is looked up.
            uncertain = Attempt(id: id, outbox: outbox, extra: extra)
            let committing = send("COMMIT", on: connection)
            _ = try wait(written, timeout: patience) { connection.closeSoon() }
            _ = try wait(committing, timeout: patience) { connection.closeSoon() }
            uncertain = nil
            // The others' hint, after the commit and not waited for: it carries nothing they believe, and a
            // notification queue another session keeps full (by listening inside an open transaction) must not
            // make commits fail. An instance that misses it finds the commit at its next check.
            _ = send("SELECT pg_notify(\(channel), '')", on: connection)
            settle(Attempt(id: id, outbox: outbox, extra: extra), version: newVersion, head: id)
            return true
        } catch {
            if !connection.isClosed, uncertain == nil { _ = try? run("ROLLBACK", on: connection) }
            throw error
        }
    }

    /// How many batch ids a suite remembers: enough for every commit that can be in doubt at once, and the
    /// history a catch-up checks memory against.
    private static let recentBatches = 256

    /// What a batch changed as the history keeps it, `{key: stored JSON or null}`; `nil` past 8 KB, when the others
    /// read the values themselves.
    static func historyText(of changed: [String: PropertyListValue?]) -> String? {
        let entries = changed.mapValues { $0.map(StoredJSON.init) }
        guard let data = try? JSONEncoder().encode(entries), data.count <= 8_192 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// The changes of versions `known + 1` through `latest`, in order, from the history the catch-up read (a JSON
    /// array of `[version, changes]`); `nil` when it lacks one of them (pruned, too large, or not the store's
    /// JSON), and the values must be read instead.
    static func history(_ text: String?, after known: Int64, through latest: Int64)
        -> [(version: Int64, changes: [String: PropertyListValue?])]?
    {
        let (span, overflow) = latest.subtractingReportingOverflow(known)
        guard !overflow, span > 0, span <= recentBatches, let text,
            let steps = try? JSONDecoder().decode([HistoryStep].self, from: Data(text.utf8)), steps.count == span
        else { return nil }
        var versions: [(version: Int64, changes: [String: PropertyListValue?])] = []
        for (offset, step) in steps.enumerated() {
            guard let version = Int64(step.version), version == known + Int64(offset) + 1, let changes = step.changes
            else { return nil }
            versions.append((version, changes.mapValues { $0?.value }))
        }
        return versions
    }

    /// One row of the history as the catch-up reads it: `[version as text, changes or null]`.
    private struct HistoryStep: Decodable {
        let version: String
        let changes: [String: StoredJSON?]?

        init(from decoder: any Decoder) throws {
            var row = try decoder.unkeyedContainer()
            version = try row.decode(String.self)
            changes = try row.decodeIfPresent([String: StoredJSON?].self)
        }
    }

    /// The largest total of value text one statement carries (one larger value goes alone).
    static let chunkBytes = 4 << 20

    /// `values` as JSON text, in groups of at most ``chunkBytes`` each (a larger value in a group of its own).
    static func chunks(of values: [String: PropertyListValue]) -> [(keys: [String], texts: [String])] {
        var chunks: [(keys: [String], texts: [String])] = []
        var current: (keys: [String], texts: [String]) = ([], [])
        var bytes = 0
        for (key, value) in values {
            let text = StoredJSON.encode(value)
            if !current.keys.isEmpty, bytes + text.utf8.count > chunkBytes {
                chunks.append(current)
                current = ([], [])
                bytes = 0
            }
            current.keys.append(key)
            current.texts.append(text)
            bytes += text.utf8.count
        }
        if !current.keys.isEmpty { chunks.append(current) }
        return chunks
    }

    /// Runs a statement that waits for the suite's row lock: one that the server ends at its statement limit
    /// waited for the lock in several turns (each within the lock timeout), as writers queue behind another
    /// session's lock, so it is a wait to retry, not a refusal.
    private func waitingForTheRow(_ body: () throws(LinkError) -> [PostgresRow]) throws(LinkError) -> [PostgresRow] {
        do {
            return try body()
        } catch .refused(let reason) where reason.contains("SQLSTATE 57014") {
            throw .busy("another session held the suite's row lock past the query timeout: \(reason)")
        }
    }

    private func isCommitted(_ id: UUID, on connection: PostgresConnection) throws(LinkError) -> Bool {
        let rows = try run(
            // FOR SHARE waits for the suite's row lock: a transaction still committing on the old connection (a
            // slow disk, a synchronous standby) holds it, and a plain SELECT would see it as not committed yet.
            "SELECT \(id)::uuid = ANY(recent_batches) FROM typed_defaults_suites WHERE suite = \(suite) FOR SHARE",
            on: connection
        )
        guard let row = rows.first else { return false }
        return try decode(Bool.self, row)
    }

    /// Records in memory that `attempt` committed, and announces what readers see change.
    private func settle(_ attempt: Attempt, version: Int64?, head: UUID? = nil) {
        memory.withLock { memory in
            changes.publish(memory.committed(attempt.outbox, extra: attempt.extra, version: version, head: head))
        }
    }

    // MARK: Catching up

    /// Brings memory up to the server's latest version of the suite: what changed since the version memory
    /// reflects, or everything when the server's suite is not the one memory followed.
    ///
    /// The server keeps the ids of its last commits (``recentBatches``); memory keeps the id of the commit its
    /// version came from. When the server's id for that version is another, or the server's version is lower,
    /// the suite was replaced (a restore from a backup, tables dropped and made again, a version set back), and
    /// versions alone would mislead: memory is replaced whole, with a diagnostic.
    private func catchUp(on connection: PostgresConnection) throws(LinkError) {
        let (known, head) = memory.withLock { ($0.version, $0.head) }
        // One row: the suite's version, its commit ids (the latest, and the one for the version memory holds) and
        // the history since. numeric: a hostile version near either end of bigint must not make the query fail.
        let rows = try run(
            """
            SELECT s.version, s.recent_batches[1],
                CASE WHEN s.version::numeric - \(known)::numeric BETWEEN 0 AND \(Self.recentBatches - 1)
                    THEN s.recent_batches[(s.version::numeric - \(known)::numeric + 1)::int] END,
                s.version::numeric - \(known)::numeric >= \(Self.recentBatches),
                (SELECT json_agg(json_build_array(h.version::text, h.changes) ORDER BY h.version)::text
                    FROM typed_defaults_history h
                    WHERE h.suite = s.suite AND h.version > \(known) AND h.version <= s.version)
            FROM typed_defaults_suites s
            WHERE s.suite = \(suite)
            """,
            on: connection
        )
        var (version, latest, atKnown, beyondHistory, historyText): (Int64, UUID?, UUID?, Bool, String?) =
            (0, nil, nil, false, nil)
        if let row = rows.first {
            (version, latest, atKnown, beyondHistory, historyText) = try decode(
                (Int64, UUID?, UUID?, Bool, String?).self,
                row
            )
        }
        // The server's id for the version memory holds is the one memory keeps (both `nil` for a suite never
        // committed to, or a missing suite row: then any values memory holds are replaced by none).
        let followed = atKnown == head && !(rows.isEmpty && memory.withLock { !$0.server.isEmpty })
        if version < known || !followed {
            let all = try run(
                "SELECT key, value::text FROM typed_defaults WHERE suite = \(suite) AND value IS NOT NULL",
                on: connection
            )
            var values: [String: PropertyListValue] = [:]
            for row in all {
                let (key, text) = try decode((String, String).self, row)
                guard let value = readable(text, key: key) else { continue }
                values[key] = value
            }
            memory.withLock { memory in
                changes.publish(memory.replaceServer(with: values, version: version, head: latest))
            }
            // Without an id (a copy saved by an older version), or more commits behind than the server remembers,
            // memory could not tell; that is no replacement.
            if head != nil, !beyondHistory {
                queue(
                    DefaultsDiagnostic(
                        kind: .storeReplaced,
                        suite: suite,
                        key: nil,
                        message: "the suite at \(server) is not the one this instance followed (version \(known) "
                            + "here, \(version) there: restored, re-created or set back); reads now follow the "
                            + "server's \(values.count) values"
                    )
                )
            }
        } else if version > known, let versions = Self.history(historyText, after: known, through: version) {
            // Version by version, so that observers hear every value another instance committed, in order.
            memory.withLock { memory in
                for step in versions where step.version > memory.version {
                    let head = step.version == version ? latest : nil
                    changes.publish(memory.applyServer(step.changes, version: step.version, head: head))
                }
            }
        } else if version > known {
            // Past the history: the rows changed since, each its key's latest value.
            let rows = try run(
                "SELECT key, value::text, version FROM typed_defaults WHERE suite = \(suite) AND version > \(known)",
                on: connection
            )
            var changed: [(key: String, value: PropertyListValue?, version: Int64)] = []
            for row in rows {
                let (key, text, rowVersion) = try decode((String, String?, Int64).self, row)
                guard let value = readable(text, key: key) else { continue }
                changed.append((key, value, rowVersion))
            }
            memory.withLock { memory in
                // Each row is its key's latest; a commit of this instance may have brought memory past `known`.
                var newer: [String: PropertyListValue?] = [:]
                for row in changed where row.version > memory.version { newer[row.key] = row.value }
                changes.publish(memory.applyServer(newer, version: version, head: latest))
            }
        }
        signal.raise { $0.saveCopy = true }
    }

    /// The value a row holds (`.some(nil)` for a removed key), or `nil` for a row that is not TypedDefaults' JSON
    /// (edited by hand, say): that row is skipped, and reported, so that one row never takes the suite offline.
    private func readable(_ text: String?, key: String) -> PropertyListValue?? {
        guard let text else { return .some(nil) }
        do {
            return .some(try StoredJSON.decode(text))
        } catch {
            queue(
                DefaultsDiagnostic(
                    kind: .storedValueMismatch,
                    suite: suite,
                    key: key,
                    message: "the row of \(String(reflecting: key)) in \(server) is not TypedDefaults' JSON "
                        + "(\(text.prefix(80))); it is left out of reads until it is written again"
                )
            )
            return nil
        }
    }

    /// A notification on the suite's channel: a hint that the table changed, never data.
    ///
    /// Anyone who can connect to the database may `NOTIFY` any channel, so what a notification says is not
    /// believed: the worker reads what changed from the table, which only roles allowed to write it can change.
    /// Notifications that arrive while a catch-up is due are folded into it, so a flood costs one read at a time.
    ///
    /// Runs on the event loop.
    private func received(from sender: Int32, own: Int32) {
        // This connection's own commits are in memory already (the server, not the payload, names the sender).
        guard sender != own else { return }
        signal.raise { $0.catchUp = true }
    }

    // MARK: Connecting

    /// The connection, made and set up (schema, `LISTEN`, catch-up) if there is none.
    ///
    /// Call under ``conversation``.
    private func connected(deadline: ContinuousClock.Instant) throws(LinkError) -> PostgresConnection {
        if let connection = link.withLock({ $0.connection }), !connection.isClosed { return connection }
        guard !link.withLock({ $0.stopped }) else { throw .unreachable("the store was closed") }
        let patience = min(options.connectTimeout, max(deadline - .now, .milliseconds(100)))
        let eventLoop = Self.eventLoops.next()
        let connecting: Result<PostgresConnection, LinkError>
        do throws(LinkError) {
            let started = ContinuousClock.now
            var privateConfiguration = try PrivateSocket.configuration(
                configuration,
                on: eventLoop,
                patience: patience
            )
            // The handshake gets what is left of the patience.
            let left = max(patience - (.now - started), .milliseconds(100))
            privateConfiguration.options.connectTimeout = .nanoseconds(Int64(left.seconds * 1e9))
            let made = PostgresConnection.connect(
                on: eventLoop,
                configuration: privateConfiguration,
                id: Self.connectionIDs.add(1, ordering: .relaxed).newValue,
                logger: Self.logger
            )
            connecting = wait(made, timeout: left + .seconds(1))
            // A connection that arrives after the wait gave up is nobody's: closed, not left open at the server.
            if case .failure = connecting { made.whenSuccess { $0.closeSoon() } }
        } catch {
            connecting = .failure(error)
        }
        let connection: PostgresConnection
        switch connecting {
        case .success(let made):
            connection = made
        case .failure(let error):
            link.withLock { $0.unreachableSince = $0.unreachableSince ?? .now }
            throw error
        }
        do throws(LinkError) {
            // A session that stops inside a transaction (a frozen process, a partition) holds its locks: the
            // suite's row lock in a commit, the schema lock while it creates the tables. The server ends such a
            // session after this long, rather than when TCP gives up, hours later; so it is set before the first
            // transaction the connection starts.
            try run("SET idle_in_transaction_session_timeout = '10s'", on: connection)
            // A statement that waits for a lock (a row an operator's session holds, say) is ended by the server
            // itself at the query timeout, with an error naming why, and the connection stays usable: a client
            // that gives up only closes its socket, which a backend waiting on a lock does not notice, so
            // abandoned sessions would pile up. Commits also limit how long a statement runs (``commitOnce``).
            try run(PostgresQuery(unsafeSQL: "SET lock_timeout = \(statementLimit - 1000)"), on: connection)
            // Every connection: the tables may have been dropped, or the database restored, since the last one.
            try prepareSchema(on: connection)
            let backend = try decode(Int32.self, try run("SELECT pg_backend_pid()", on: connection).first)
            connection.addListener(channel: channel) {
                [weak self] (_: PostgresListenContext, notification: PostgresMessage.NotificationResponse) in
                self?.received(from: notification.backendPID, own: backend)
            }
            // Listening before catching up: a commit after the catch-up's snapshot is then always heard.
            try run(PostgresQuery(unsafeSQL: "LISTEN \(channel)"), on: connection)
            try catchUp(on: connection)
        } catch {
            connection.closeSoon()
            throw error
        }
        let stopped = link.withLock { link in
            guard !link.stopped else { return true }
            link.connection = connection
            link.unreachableSince = nil
            return false
        }
        guard !stopped else {
            // The store was closed while this connected: ``stop()`` saw no connection to close.
            connection.closeSoon()
            throw .unreachable("the store was closed")
        }
        // Now, not later on the worker: a short-lived process (a command-line tool) may exit right after reading.
        saveCopy()
        connection.closeFuture.whenComplete { [weak self] (_: Result<Void, any Error>) in
            guard let self else { return }
            link.withLock { $0.unreachableSince = $0.unreachableSince ?? .now }
            signal.raise { $0.connectionLost = true }
        }
        return connection
    }

    private func prepareSchema(on connection: PostgresConnection) throws(LinkError) {
        let existing = try run(
            """
            SELECT obj_description(to_regclass('typed_defaults'), 'pg_class'),
                   to_regclass('typed_defaults') IS NOT NULL AND to_regclass('typed_defaults_suites') IS NOT NULL
                   AND to_regclass('typed_defaults_history') IS NOT NULL
            """,
            on: connection
        )
        let (comment, exists) = try decode((String?, Bool).self, existing.first)
        if exists {
            guard let comment, comment.hasPrefix(Self.schemaComment) else {
                throw .refused(
                    "table typed_defaults is not TypedDefaults' schema 1 (its comment is \(String(reflecting: comment ?? "")))"
                )
            }
            return
        }
        try run("BEGIN", on: connection)
        do throws(LinkError) {
            // Instances starting together would otherwise race to create the same tables. The lock is tried, not
            // waited for: any role may take an advisory lock and keep it, and a backend left waiting on one after
            // its client gave up would hold a connection slot for as long; a holder keeps the tables from being
            // created, never the slots.
            let deadline = ContinuousClock.now + options.queryTimeout
            while try !decode(
                Bool.self,
                run("SELECT pg_try_advisory_xact_lock(\(Self.schemaLock))", on: connection).first
            ) {
                guard ContinuousClock.now < deadline else {
                    throw LinkError.busy(
                        "another session holds the lock that guards creating the tables "
                            + "(pg_advisory_lock(\(Self.schemaLock))); they are created once it lets go"
                    )
                }
                Thread.sleep(forTimeInterval: 0.05)
            }
            for statement in Self.schema { try run(PostgresQuery(unsafeSQL: statement), on: connection) }
            try run("COMMIT", on: connection)
        } catch {
            _ = try? run("ROLLBACK", on: connection)
            throw error
        }
    }

    private static let schemaLock: Int64 = 0x7479_7065_645f_6466
    private static let schemaComment = "TypedDefaults schema 1"
    static let schema = [
        """
        CREATE TABLE IF NOT EXISTS typed_defaults (
            suite text NOT NULL,
            key text NOT NULL,
            value jsonb,
            version bigint NOT NULL,
            PRIMARY KEY (suite, key)
        )
        """,
        "CREATE INDEX IF NOT EXISTS typed_defaults_changes ON typed_defaults (suite, version)",
        """
        CREATE TABLE IF NOT EXISTS typed_defaults_suites (
            suite text PRIMARY KEY,
            version bigint NOT NULL,
            recent_batches uuid[] NOT NULL
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS typed_defaults_history (
            suite text NOT NULL,
            version bigint NOT NULL,
            changes jsonb,
            PRIMARY KEY (suite, version)
        )
        """,
        """
        COMMENT ON TABLE typed_defaults IS 'TypedDefaults schema 1: a row per suite and key; value is NULL \
        for a removed key; version is the suite version of the last change'
        """,
    ]

    // MARK: The worker

    /// How often a connected instance with nothing else to do checks that the server's suite is still the one it
    /// follows (one small query): how soon it notices a restore, a dropped table or a version set back.
    static let checkInterval = Duration.seconds(3)

    private func runWorker() {
        Self.blockSignals()
        var delay = Duration.milliseconds(100)
        while true {
            let isConnected = link.withLock { $0.connection.map { !$0.isClosed } ?? false }
            var work = signal.wait(timeout: isConnected ? Self.checkInterval : delay)
            if work.stopped { return }
            // Nothing tells an instance of a restore or a dropped table: it looks every few seconds.
            if isConnected, work.isEmpty { work.catchUp = true }
            if !link.withLock({ $0.connection.map { !$0.isClosed } ?? false }) {
                do throws(LinkError) {
                    try converse { () throws(LinkError) in
                        _ = try connected(deadline: .now + options.connectTimeout)
                    }
                    delay = .milliseconds(100)
                    link.withLock { $0.outageReported = false }
                } catch {
                    if !link.withLock({ $0.stopped }) { reportOutage(error, atStart: false) }
                    delay = min(delay * 2, .seconds(1))
                }
            } else if work.catchUp {
                converse {
                    guard let connection = link.withLock({ $0.connection }) else { return }
                    do throws(LinkError) {
                        try catchUp(on: connection)
                    } catch {
                        // Reconnecting catches up from the start.
                        connection.closeSoon()
                    }
                }
            }
            saveCopy()
        }
    }

    /// Writes the server state memory holds to the local copy, if it changed since the last save.
    func saveCopy() {
        saving.withLock {
            let contents = memory.withLock { memory -> LocalCopy.Contents? in
                guard memory.version != memory.savedVersion else { return nil }
                memory.savedVersion = memory.version
                return LocalCopy.Contents(
                    version: memory.version,
                    head: memory.head,
                    values: memory.server.mapValues(StoredJSON.init)
                )
            }
            if let contents { try? copy.save(contents) }
        }
    }

    private func reportOutage(_ error: LinkError, atStart: Bool) {
        let first = link.withLock { link in
            defer { link.outageReported = true }
            return !link.outageReported
        }
        guard first else { return }
        let (version, hasCopy) = memory.withLock { ($0.version, $0.savedVersion >= 0) }
        let reads =
            !atStart
            ? "reads return the last values seen; reconnecting"
            : hasCopy
                ? "reads return the last values this machine saw (suite version \(version), kept in \(copy.url?.path ?? "memory")); connecting in the background"
                : "this machine has no copy of the suite, so reads return the keys' defaults until it connects"
        DefaultsDiagnostics.report(
            DefaultsDiagnostic(
                kind: .storeUnavailable,
                suite: suite,
                key: nil,
                message: "cannot reach PostgreSQL at \(server) (\(error.reason)); \(reads)"
            )
        )
    }

    /// Keeps signals meant for the program off this thread (the program's handlers run elsewhere).
    private static func blockSignals() {
        var all = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_BLOCK, &all, nil)
    }

    // MARK: Talking to the server

    /// Runs `body` as one conversation with the server (see ``conversation``).
    ///
    /// Diagnostics found meanwhile go out after it, with no lock held: the handler is the user's code.
    private func converse<Result, Failure>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        defer {
            let diagnostics = queued.withLock { queue in
                defer { queue = [] }
                return queue
            }
            for diagnostic in diagnostics { DefaultsDiagnostics.report(diagnostic) }
        }
        conversation.lock()
        defer { conversation.unlock() }
        return try body()
    }

    /// Keeps `diagnostic` for the end of the conversation (``converse(_:)``).
    private func queue(_ diagnostic: DefaultsDiagnostic) {
        queued.withLock { $0.append(diagnostic) }
    }

    /// Sends one statement without waiting for its reply (statements on a connection run in the order sent).
    private func send(_ query: PostgresQuery, on connection: PostgresConnection) -> EventLoopFuture<PostgresQueryResult>
    {
        connection.query(query, logger: Self.logger)
    }

    /// Runs one statement and returns its rows.
    ///
    /// Closes the connection when the server has not answered a little after the options' query timeout (a
    /// partition shows as silence, not as an error). The server ends a
    /// statement at the query timeout itself (`statement_timeout`), with an error that says so, and that comes
    /// first while the server is there.
    @discardableResult
    private func run(_ query: PostgresQuery, on connection: PostgresConnection) throws(LinkError) -> [PostgresRow] {
        let result = try wait(connection.query(query, logger: Self.logger), timeout: patience) {
            connection.closeSoon()
        }
        return Array(result.rows)
    }

    /// How long the client waits for an answer: the server's own limit, and time for its error to arrive.
    private var patience: Duration { options.queryTimeout + .seconds(3) }

    /// The server's limit on one statement of a commit, in milliseconds: a second above the query timeout, so
    /// that a lock wait (limited to the query timeout) ends first, as a wait and not as a refusal.
    private var statementLimit: Int64 { max(Int64(options.queryTimeout.seconds * 1000), 1) + 1000 }

    private func wait<Value: Sendable>(
        _ future: EventLoopFuture<Value>,
        timeout: Duration
    ) -> Result<Value, LinkError> {
        Result { () throws(LinkError) in try wait(future, timeout: timeout, onTimeout: {}) }
    }

    private func wait<Value: Sendable>(
        _ future: EventLoopFuture<Value>,
        timeout: Duration,
        onTimeout: @escaping @Sendable () -> Void
    ) throws(LinkError) -> Value {
        // The timeout ends the wait itself: a statement sent on a connection that is closing can go unanswered
        // even after the connection is closed.
        let answer = future.eventLoop.makePromise(of: Value.self)
        future.cascade(to: answer)
        let timer = future.eventLoop.scheduleTask(in: .nanoseconds(Int64(timeout.seconds * 1e9))) {
            answer.fail(LinkError.unreachable("no answer within \(timeout)"))
            onTimeout()
        }
        defer { timer.cancel() }
        do {
            return try answer.futureResult.wait()
        } catch {
            throw LinkError(error, hiding: password)
        }
    }

    private func decode<Value: PostgresDecodable>(_ type: Value.Type, _ row: PostgresRow?) throws(LinkError) -> Value {
        do {
            guard let row else { throw LinkError.refused("the server returned no row") }
            return try row.decode(Value.self)
        } catch let error as LinkError {
            throw error
        } catch {
            throw .refused("the server's reply does not decode: \(String(describing: error))")
        }
    }

    private func decode<each Column: PostgresDecodable>(
        _ type: (repeat each Column).Type,
        _ row: PostgresRow?
    ) throws(LinkError) -> (repeat each Column) {
        do {
            guard let row else { throw LinkError.refused("the server returned no row") }
            return try row.decode((repeat each Column).self)
        } catch let error as LinkError {
            throw error
        } catch {
            throw .refused("the server's reply does not decode: \(String(describing: error))")
        }
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// Wakes the worker thread with what there is to do.
private final class WorkerSignal: @unchecked Sendable {
    struct Work {
        var catchUp = false
        var connectionLost = false
        var saveCopy = false
        var stopped = false

        var isEmpty: Bool { !catchUp && !connectionLost && !saveCopy && !stopped }
    }

    private let condition = NSCondition()
    // Read and written only while holding `condition`.
    private var work = Work()

    func raise(_ body: (inout Work) -> Void) {
        condition.lock()
        body(&work)
        condition.signal()
        condition.unlock()
    }

    /// Waits until there is work or `timeout` passes (forever for `nil`), and takes the work.
    func wait(timeout: Duration?) -> Work {
        condition.lock()
        defer { condition.unlock() }
        let deadline = timeout.map { Date().addingTimeInterval($0.seconds) }
        while work.isEmpty {
            if let deadline {
                if !condition.wait(until: deadline) { break }
            } else {
                condition.wait()
            }
        }
        let taken = work
        work = Work(stopped: work.stopped)
        return taken
    }
}

extension PostgresConnection {
    /// Closes the connection without waiting: what is in flight on it fails, and its close future fires.
    ///
    /// The connection is kept until it is closed: postgres-nio requires that of its last owner.
    func closeSoon() {
        let closing: EventLoopFuture<Void> = close()
        closing.whenComplete { (_: Result<Void, any Error>) in withExtendedLifetime(self) {} }
    }
}
