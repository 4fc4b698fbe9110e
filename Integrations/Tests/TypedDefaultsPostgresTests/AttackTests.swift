import Foundation
import PostgresNIO
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TypedDefaults
import TypedDefaultsPostgres

/// Findings of a hostile review of the store, each kept as the behaviour it guards.
@Suite("Attacks on PostgresStore")
struct AttackTests {
    /// A commit the server finishes after the store gave up on its connection counts once.
    ///
    /// The store's query timeout closes the connection while the server is still running the COMMIT (a slow
    /// fsync, a synchronous standby that lags; here a deferred trigger): the store reconnects at once and asks
    /// whether the batch committed, which must wait for the old transaction (it holds the suite's row lock), or a
    /// `modify` would run its batch again and count twice.
    @Test("a modify whose commit outlives the query timeout is applied once")
    func cutOffCommitAppliedOnce() throws {
        let cluster = try Fixture.cluster()
        let suite = Fixture.suite("cutoff")
        let tag = "slow_" + suite.replacingOccurrences(of: "-", with: "_").lowercased()
        var options = Fixture.options()
        options.queryTimeout = .seconds(1)
        let store = try Fixture.store(cluster, suite: suite, options: options)
        let defaults = DefaultsAdapter(store: store, keyStore: DefaultsKeys())
        let count = Key<Int>("count", default: 0)
        try defaults.modify(count) { $0 += 1 }  // suite version 1
        // The COMMIT of the suite's version 2 takes 1.6 s at the server: longer than the store's query timeout.
        _ = try cluster.psql(
            """
            CREATE FUNCTION \(tag)() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.suite = '\(suite)' AND NEW.version = 2 THEN PERFORM pg_sleep(1.6); END IF;
                RETURN NULL;
            END $$;
            CREATE CONSTRAINT TRIGGER \(tag) AFTER UPDATE ON typed_defaults_suites
                DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION \(tag)();
            """
        )
        defer { _ = try? cluster.psql("DROP TRIGGER \(tag) ON typed_defaults_suites; DROP FUNCTION \(tag)()") }
        let runs = Shared(0)
        let result = try defaults.modify(count) { value in
            runs.withLock { $0 += 1 }
            value += 1
        }
        let stored = try cluster.psql(
            "SELECT value->>'integer' FROM typed_defaults WHERE suite = '\(suite)' AND key = 'count'"
        )
        #expect(
            stored == "2",
            "two increments stored \(stored) (modify returned \(result), its body ran \(runs.withLock { $0 }) times)"
        )
        #expect(result == 2)
    }

    /// A key the server cannot index (a name beyond the 2,704 bytes a btree index row holds) is refused on its
    /// own, and never holds up the other keys committed in the same transaction.
    @Test("a write the server refuses does not block every later write of the suite")
    func refusedWriteDoesNotWedgeTheSuite() throws {
        let cluster = try Fixture.cluster()
        let suite = Fixture.suite("wedged")
        let store = try Fixture.store(cluster, suite: suite, options: Fixture.options(retryLimit: .seconds(3)))
        let long = (0..<400).map { _ in UUID().uuidString }.joined()
        do {
            _ = try store.apply(DefaultsBatch(writes: [long: .integer(1)]))
            try store.flush()
        } catch {
            // Refusing the long key is fair (the store refuses it when it is applied); what follows is not.
        }
        _ = try store.apply(DefaultsBatch(writes: ["plain": .integer(2)]))
        var failure: DefaultsError?
        do {
            try store.flush()
        } catch {
            failure = error
        }
        #expect(failure == nil, "a flush of an ordinary key failed: \(failure.map { "\($0)" } ?? "")")
        let committed = try cluster.psql(
            "SELECT count(*) FROM typed_defaults WHERE suite = '\(suite)' AND key = 'plain'"
        )
        #expect(committed == "1")
    }

    /// One row that is not TypedDefaults' JSON (an operator who reads `{"integer": "250"}` in psql and writes
    /// `{"integer": 300}`) is left out of reads; every instance that starts or reconnects still reads the other
    /// keys and commits to the suite.
    @Test("one hand-edited row does not take the whole suite offline")
    func foreignRowDoesNotTakeTheSuiteOffline() throws {
        let cluster = try Fixture.cluster()
        let suite = Fixture.suite("hand-edited")
        let first = try Fixture.store(cluster, suite: suite)
        _ = try first.apply(DefaultsBatch(writes: ["limit": .integer(250), "other": .string("kept")]))
        try first.flush()
        _ = try cluster.psql(
            "UPDATE typed_defaults SET value = '{\"integer\": 300}' WHERE suite = '\(suite)' AND key = 'limit'"
        )
        let later = try Fixture.store(cluster, suite: suite, options: Fixture.options(retryLimit: .seconds(3)))
        #expect(later.value(forKey: "other") == .string("kept"))
        _ = try later.apply(DefaultsBatch(writes: ["fresh": .integer(1)]))
        var failure: DefaultsError?
        do {
            try later.flush()
        } catch {
            failure = error
        }
        #expect(failure == nil, "\(failure.map { "\($0)" } ?? "")")
    }

    /// An instance frozen in the middle of a commit does not hold the suite's lock for hours.
    ///
    /// A commit holds the suite's row lock across round trips (BEGIN and `SELECT … FOR UPDATE`, the writes,
    /// COMMIT). An instance frozen between them (SIGSTOP, a paused VM, a debugger, a partition after the lock)
    /// leaves its session idle in a transaction with the lock held; the store's connections set
    /// `idle_in_transaction_session_timeout`, so the server ends that session and other instances commit.
    @Test("an instance frozen in the middle of a commit does not block the suite's writes everywhere")
    func frozenInstanceDoesNotBlockTheSuite() async throws {
        let cluster = try Fixture.cluster()
        // A database of its own: the only sessions in it are this test's, so the one caught idle in a
        // transaction is the incrementing process's. The tables exist before it starts, so the transaction it
        // is caught in is a commit; one with a transaction id has locked the suite's row.
        let database = try cluster.createDatabase("frozen")
        let fleet = FleetSettings(url: cluster.url(database: database), suite: Fixture.suite("frozen"))
        _ = try PostgresStore(url: fleet.url, suite: fleet.suite, options: Fixture.options())
        let busy = try fleet.start(["increment", "count", "1000000"])
        defer { busy.end() }
        var frozen = false
        for _ in 0..<500 where !frozen {
            try await Task.sleep(for: .milliseconds(20))
            busy.signal(SIGSTOP)
            try await Task.sleep(for: .milliseconds(50))
            let idle = try cluster.psql(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database)' AND state = 'idle in transaction' AND backend_xid IS NOT NULL"
            )
            if idle != "0" { frozen = true } else { busy.signal(SIGCONT) }
        }
        try #require(frozen, "the incrementing process was never caught inside a transaction")
        try expectCommits(to: fleet)
    }

    /// An instance frozen while it creates the tables (the first start on a new database) does not keep every
    /// other instance from starting.
    ///
    /// Instances that find no tables create them in one transaction, under an advisory lock so that two never
    /// race, which they try for rather than wait on. An instance frozen inside that transaction has a session
    /// idle in it; the session has the idle-in-transaction timeout before the transaction begins, so the server
    /// ends it, another instance creates the tables, and the frozen one, thawed, carries on.
    @Test("an instance frozen while it creates the tables does not keep the others from starting")
    func frozenWhileCreatingTheSchema() async throws {
        let cluster = try Fixture.cluster()
        let database = try cluster.createDatabase("schema")
        let fleet = FleetSettings(url: cluster.url(database: database), suite: Fixture.suite("schema"))
        // A psql session holds the schema lock (the key every version of the store uses, "typed_df"), so the
        // instance stays inside its schema transaction, trying for it.
        let holder = try cluster.startPsql(
            "SELECT pg_advisory_lock(\(0x7479_7065_645f_6466 as Int64)), pg_sleep(600)",
            database: database
        )
        defer { holder.end() }
        let first = try fleet.start(["set", "first", "1"])
        defer { first.end() }
        let trying = "state = 'idle in transaction' AND query LIKE '%pg_try_advisory_xact_lock%'"
        try #require(await sessionAppears(in: database, where: trying, on: cluster), "never saw it try for the lock")
        // Frozen inside its schema transaction; then the lock is let go, with the frozen one unable to take it.
        first.signal(SIGSTOP)
        _ = try cluster.psql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(600)%' "
                + "AND datname = '\(database)' AND pid <> pg_backend_pid()"
        )

        try expectCommits(to: fleet)
        first.signal(SIGCONT)
        let status = await first.wait(timeout: .seconds(60))
        #expect(status == 0, "the thawed instance: \(first.errors)")
        let check = try PostgresStore(url: fleet.url, suite: fleet.suite, options: Fixture.options())
        #expect(check.value(forKey: "first") == .integer(1))
    }

    /// A child process the program starts does not keep the store's connections open.
    ///
    /// A child started with `posix_spawn`, `system` or `fork` and `exec` gets every descriptor that is not
    /// close-on-exec. The store's sockets are, so a connection the store closes (after a timeout, or when the
    /// store goes away) ends at the server at once, child or no child: an abandoned session never keeps a
    /// transaction, or a lock granted to it, alive.
    @Test(
        "a child process started while the store is connected does not keep its connection open",
        arguments: [false, true]
    )
    func childProcessDoesNotHoldTheConnection(overUnixSocket: Bool) async throws {
        let cluster = try Fixture.cluster()
        let database = try cluster.createDatabase("inherit")
        let sessions = """
            SELECT count(*) FROM pg_stat_activity
            WHERE datname = '\(database)' AND backend_type = 'client backend' AND pid <> pg_backend_pid()
            """
        let configuration =
            overUnixSocket
            ? PostgresConnection.Configuration(
                unixSocketPath: cluster.unixSocketPath,
                username: PostgresCluster.user,
                password: nil,
                database: database
            )
            : PostgresConnection.Configuration(
                host: "127.0.0.1",
                port: cluster.port,
                username: PostgresCluster.user,
                password: nil,
                database: database,
                tls: .disable
            )
        var store: PostgresStore? = try PostgresStore(
            configuration: configuration,
            suite: Fixture.suite("inherit"),
            options: Fixture.options()
        )
        #expect(store?.value(forKey: "absent") == nil)
        #expect(try cluster.psql(sessions) == "1")
        let child = try ChildProcess("/bin/sleep", ["60"], inheritingDescriptors: true)
        defer { child.end() }
        store = nil
        var open = "1"
        for _ in 0..<100 where open != "0" {
            try await Task.sleep(for: .milliseconds(50))
            open = try cluster.psql(sessions)
        }
        #expect(open == "0", "the server still had \(open) session(s) of the closed store 5 seconds later")
    }

    /// Whether, within 30 seconds, the cluster shows a session in `database` (other than the one asking)
    /// matching `condition`.
    private func sessionAppears(in database: String, where condition: String, on cluster: PostgresCluster)
        async throws -> Bool
    {
        for _ in 0..<600 {
            let count = try cluster.psql(
                """
                SELECT count(*) FROM pg_stat_activity
                WHERE datname = '\(database)' AND pid <> pg_backend_pid() AND \(condition)
                """
            )
            if count != "0" { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Expects another instance of the suite to commit a write within 20 seconds, each statement given 2.
    private func expectCommits(to fleet: FleetSettings) throws {
        var options = Fixture.options(retryLimit: .seconds(20))
        options.queryTimeout = .seconds(2)
        let other = try PostgresStore(url: fleet.url, suite: fleet.suite, options: options)
        _ = try other.apply(DefaultsBatch(writes: ["other": .integer(1)]))
        var failure: DefaultsError?
        do {
            try other.flush()
        } catch {
            failure = error
        }
        #expect(failure == nil, "\(failure.map { "\($0)" } ?? "")")
    }
}
