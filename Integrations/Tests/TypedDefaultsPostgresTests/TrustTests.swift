import Foundation
import Testing
import TypedDefaults

@testable import TypedDefaultsPostgres

#if canImport(Glibc)
import Glibc
#endif

/// A third hostile review, each finding kept as the behaviour it guards: strangers on the same server, a database
/// restored or dropped under running instances, batches larger than a statement's time, sessions that hold a
/// suite's row lock, versions at the end of `bigint`, and `fork` without `exec`.
@Suite("Attacks on PostgresStore: trust, restores and limits")
struct TrustTests {
    /// A role with no privilege on the store's tables cannot set what instances read.
    ///
    /// It may still `NOTIFY` any channel, and the suite's channel name can be computed from its name. What it sends is at most a reason to read the table again.
    @Test("a role without grants cannot set or freeze what instances read by forging notifications")
    func forgedNotifications() async throws {
        let cluster = try Fixture.cluster()
        let suite = Fixture.suite("forged")
        let stranger = "stranger_\(UUID().uuidString.prefix(8).lowercased())"
        _ = try cluster.psql("CREATE ROLE \(stranger) LOGIN")
        defer { _ = try? cluster.psql("DROP ROLE \(stranger)") }
        let reader = try Fixture.store(cluster, suite: suite)
        let writer = try Fixture.store(cluster, suite: suite)
        let reads = DefaultsAdapter(store: reader, keyStore: DefaultsKeys())
        let writes = DefaultsAdapter(store: writer, keyStore: DefaultsKeys(), writePolicy: .immediate)
        let limit = Key<Int>("limit", default: 0)
        try writes.set(1, for: limit)
        #expect(await Fixture.eventually { reads[limit] == 1 })
        // The stranger cannot write the table...
        #expect(throws: PostgresCluster.ClusterError.self) {
            try cluster.psql("UPDATE typed_defaults SET value = '{\"integer\": 999}'", user: stranger)
        }
        // ...so it forges commits: every version from 1 to 2,000, replays, an oversized and a garbage payload.
        let channel = "typed_defaults_" + LocalCopy.digest(suite)
        let quoted = suite.replacingOccurrences(of: "'", with: "''")
        _ = try cluster.psql(
            """
            SELECT pg_notify('\(channel)', format('{"suite":"%s","version":%s,"changes":{"limit":{"integer":999},\
            "planted":{"string":"x"}}}', '\(quoted)', v)) FROM generate_series(1, 2000) v;
            SELECT pg_notify('\(channel)', repeat('x', 7990));
            SELECT pg_notify('\(channel)', 'not json');
            """,
            user: stranger
        )
        try await Task.sleep(for: .seconds(1))
        #expect(reads[limit] == 1, "a forged notification set a value no commit made")
        #expect(reader.value(forKey: "planted") == nil)
        // A real commit after the forgeries still arrives.
        try writes.set(2, for: limit)
        #expect(await Fixture.eventually { reads[limit] == 2 }, "a real commit was ignored after the forgeries")
    }

    /// A database restored from a backup (or tables dropped and made again) goes back to older versions: a running
    /// instance must follow what the server holds, not take the lower versions for ones it has seen.
    @Test("after a restore from a backup, and after the tables are dropped, running instances follow the server")
    func restoredAndDropped() async throws {
        let cluster = try Fixture.cluster()
        let database = try cluster.createDatabase("restored")
        let url = cluster.url(database: database)
        let suite = Fixture.suite("restored")
        _ = DiagnosticLog.shared
        let follower = try PostgresStore(url: url, suite: suite, options: Fixture.options())
        let writer = try PostgresStore(url: url, suite: suite, options: Fixture.options())
        let reads = DefaultsAdapter(store: follower, keyStore: DefaultsKeys())
        let writes = DefaultsAdapter(store: writer, keyStore: DefaultsKeys(), writePolicy: .immediate)
        let (x, y) = (Key<Int>("x", default: 0), Key<Int>("y", default: 0))
        let heard = Shared<[String]>([])
        let observation = reads.observe(x, queue: DispatchQueue(label: "restored")) { change in
            heard.withLock { $0.append("x:\(change.oldValue)->\(change.newValue)") }
        }
        defer { observation.invalidate() }
        try writes.set(1, for: x)
        let backup = Fixture.directory().appendingPathComponent("backup.dump")
        try cluster.dump(database, to: backup)
        for value in 2...6 { try writes.set(value, for: x) }
        try writes.set(9, for: y)
        #expect(await Fixture.eventually { reads[x] == 6 && reads[y] == 9 })

        try cluster.restore(database, from: backup)
        let restoredAt = ContinuousClock.now
        #expect(
            await Fixture.eventually(within: .seconds(15)) { reads[x] == 1 && reads[y] == 0 },
            "x=\(reads[x]) y=\(reads[y]) after the restore"
        )
        print("converged \(ContinuousClock.now - restoredAt) after the restore")
        #expect(await Fixture.eventually { heard.withLock { $0.last } == "x:6->1" }, "\(heard.withLock { $0 })")
        #expect(DiagnosticLog.shared.diagnostics(forSuite: suite).contains { $0.kind == .storeReplaced })
        // Commits after the restore start again from version 1: each is followed, as the writer makes them.
        let another = try PostgresStore(url: url, suite: suite, options: Fixture.options())
        let later = DefaultsAdapter(store: another, keyStore: DefaultsKeys(), writePolicy: .immediate)
        for value in 100...119 { try later.set(value, for: x) }
        #expect(await Fixture.eventually { reads[x] == 119 && writer.value(forKey: "x") == .integer(119) })

        _ = try cluster.psql("DROP TABLE typed_defaults, typed_defaults_suites", database: database)
        let droppedAt = ContinuousClock.now
        #expect(
            await Fixture.eventually(within: .seconds(15)) { reads[x] == 0 },
            "x=\(reads[x]) after the tables were dropped"
        )
        print("converged \(ContinuousClock.now - droppedAt) after DROP TABLE")
        try writes.set(7, for: y)
        #expect(await Fixture.eventually { reads[y] == 7 }, "a commit after the tables came back was not followed")
    }

    /// Values of 12 MB each (16 MB as text), coalesced into one batch, with a 2-second query timeout: sent
    /// whole as one statement they never fit the limit, and every later write of the suite waited behind them.
    @Test("a batch larger than one statement's time commits, and the writes after it are not held up")
    func largeBatch() throws {
        let cluster = try Fixture.cluster()
        let suite = Fixture.suite("large")
        var options = Fixture.options(retryLimit: .seconds(30))
        options.queryTimeout = .seconds(2)
        let store = try Fixture.store(cluster, suite: suite, options: options)
        // Just under the most one value may take in a property list (16 MiB, written as base64 text).
        var writes: [String: PropertyListValue] = [:]
        for index in 0..<8 { writes["blob\(index)"] = .data(Data(repeating: UInt8(index), count: 12_000_000)) }
        _ = try store.apply(DefaultsBatch(writes: writes))
        let started = ContinuousClock.now
        try store.flush()
        print("8 values of 12 MB committed in \(ContinuousClock.now - started)")
        _ = try store.apply(DefaultsBatch(writes: ["small": .integer(1)]))
        try store.flush()
        let stored = try cluster.psql(
            "SELECT count(*) FROM typed_defaults WHERE suite = '\(suite)' AND value IS NOT NULL"
        )
        #expect(stored == "9")
        let other = try Fixture.store(cluster, suite: suite)
        #expect(other.value(forKey: "blob7") == writes["blob7"])
    }

    /// While an operator's session holds the suite's row lock, a writer's wait ends at the query timeout with an
    /// error that says so, and the server ends the waiting statement itself: the sessions an instance has at the
    /// server stay one each, however long the lock is held.
    @Test("while a session holds the suite's row lock, writers fail with the reason and leave no sessions behind")
    func sessionsStayBounded() async throws {
        let cluster = try Fixture.cluster()
        let database = try cluster.createDatabase("locked")
        let url = cluster.url(database: database)
        let suite = Fixture.suite("locked")
        var options = Fixture.options(retryLimit: .seconds(3))
        options.queryTimeout = .seconds(1)
        let stores = try (0..<4).map { _ in try PostgresStore(url: url, suite: suite, options: options) }
        _ = try stores[0].apply(DefaultsBatch(writes: ["k": .integer(0)]))
        try stores[0].flush()
        let quoted = suite.replacingOccurrences(of: "'", with: "''")
        let holder = try cluster.startPsql(
            "BEGIN; SELECT 1 FROM typed_defaults_suites WHERE suite = '\(quoted)' FOR UPDATE; SELECT pg_sleep(25);",
            database: database
        )
        defer { holder.end() }
        let failures = Shared<[String]>([])
        let writers = stores.enumerated()
            .map { index, store in
                Thread {
                    let deadline = ContinuousClock.now + .seconds(15)
                    var round = 0
                    while ContinuousClock.now < deadline {
                        round += 1
                        do {
                            _ = try store.apply(DefaultsBatch(writes: ["k": .integer(Int64(index * 1000 + round))]))
                            try store.flush()
                        } catch {
                            failures.withLock { $0.append("\(error)") }
                        }
                    }
                }
            }
        for writer in writers { writer.start() }
        var most = 0
        let sessions = "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database)' AND pid <> pg_backend_pid()"
        for _ in 0..<30 {
            try await Task.sleep(for: .milliseconds(500))
            most = max(most, Int(try cluster.psql(sessions)) ?? 0)
        }
        print("at most \(most) sessions in the database while its row lock was held (4 instances, 1 holder)")
        // One per instance and the holder's, and a reconnect's overlap.
        #expect(most <= 7, "the server had \(most) sessions")
        try await Task.sleep(for: .seconds(4))
        let seen = failures.withLock { $0 }
        #expect(!seen.isEmpty)
        #expect(seen.allSatisfy { $0.contains("row lock") }, "\(seen.first { !$0.contains("row lock") } ?? "")")
        #expect(
            !seen.contains { $0.contains("could not be reached") },
            "\(seen.first { $0.contains("reached") } ?? "")"
        )
    }

    /// Any role may take the advisory lock that guards creating the tables (its key is in the source) and keep
    /// it: on a database without the tables, instances then cannot create them, but they must not leave a
    /// backend waiting on that lock for every attempt until the server runs out of connection slots.
    @Test("a stranger holding the schema lock costs no connection slots, and the tables come once it lets go")
    func schemaLockHeld() async throws {
        let cluster = try Fixture.cluster()
        let database = try cluster.createDatabase("schemalock")
        let stranger = "stranger_\(UUID().uuidString.prefix(8).lowercased())"
        _ = try cluster.psql("CREATE ROLE \(stranger) LOGIN")
        defer { _ = try? cluster.psql("DROP ROLE \(stranger)") }
        let holder = try cluster.startPsql(
            "SELECT pg_advisory_lock(\(0x7479_7065_645f_6466 as Int64)), pg_sleep(600)",
            database: database,
            user: stranger
        )
        defer { holder.end() }
        let held =
            "SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database WHERE l.locktype = 'advisory' AND l.granted AND d.datname = current_database()"
        var heldYet = false
        for _ in 0..<200 where !heldYet {
            heldYet = try cluster.psql(held, database: database) != "0"
            if !heldYet { try await Task.sleep(for: .milliseconds(50)) }
        }
        try #require(heldYet, "the stranger never took the lock")
        var options = Fixture.options(retryLimit: .seconds(2))
        options.queryTimeout = .seconds(1)
        options.connectTimeout = .seconds(1)
        let url = cluster.url(database: database)
        let suite = Fixture.suite("schemalock")
        let stores = try (0..<2).map { _ in try PostgresStore(url: url, suite: suite, options: options) }
        let sessions = "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database)' AND pid <> pg_backend_pid()"
        var most = 0
        var failure = ""
        for round in 0..<4 {
            _ = try stores[round % 2].apply(DefaultsBatch(writes: ["k": .integer(Int64(round))]))
            do {
                try stores[round % 2].flush()
            } catch {
                failure = "\(error)"
            }
            most = max(most, Int(try cluster.psql(sessions)) ?? 0)
        }
        #expect(most <= 4, "the server had \(most) sessions in the database (2 instances and the holder)")
        #expect(failure.contains("lock that guards creating the tables"), "\(failure)")
        // Let go: its backend sleeps on, with the lock, until it is ended.
        _ = try cluster.psql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(600)%' "
                + "AND datname = '\(database)' AND pid <> pg_backend_pid()"
        )
        var options2 = options
        options2.retryLimit = .seconds(10)
        let later = try PostgresStore(url: url, suite: suite, options: options2)
        _ = try later.apply(DefaultsBatch(writes: ["k": .integer(100)]))
        try later.flush()
        #expect(try PostgresStore(url: url, suite: suite, options: options2).value(forKey: "k") == .integer(100))
        // The instances that started while the lock was held connect too, and commit what they kept.
        try stores[1].flush()
        #expect(
            try cluster.psql(
                "SELECT value->>'integer' FROM typed_defaults WHERE suite = '\(suite)' AND key = 'k'",
                database: database
            ) == "3"
        )
    }

    /// A version of `bigint`'s largest value in the table: nothing may follow it, and nothing may trap on it.
    @Test("a suite version at the end of bigint gets a typed error, and setting it back reloads every instance")
    func versionAtTheEnd() async throws {
        let cluster = try Fixture.cluster()
        let suite = Fixture.suite("bigint")
        _ = DiagnosticLog.shared
        let running = try Fixture.store(cluster, suite: suite)
        _ = try running.apply(DefaultsBatch(writes: ["k": .integer(1)]))
        try running.flush()
        let quoted = suite.replacingOccurrences(of: "'", with: "''")
        _ = try cluster.psql(
            "UPDATE typed_defaults_suites SET version = 9223372036854775807 WHERE suite = '\(quoted)'"
        )
        let newcomer = try Fixture.store(cluster, suite: suite, options: Fixture.options(retryLimit: .seconds(3)))
        #expect(newcomer.value(forKey: "k") == .integer(1))
        _ = try newcomer.apply(DefaultsBatch(writes: ["k": .integer(2)]))
        let error = #expect(throws: DefaultsError.self) { try newcomer.flush() }
        #expect("\(error.map { "\($0)" } ?? "")".contains("largest a bigint holds"))
        // The running instance checks the suite meanwhile, and survives it.
        try await Task.sleep(for: .seconds(4))
        #expect(running.value(forKey: "k") == .integer(1))
        _ = try cluster.psql(
            """
            UPDATE typed_defaults_suites SET version = 0 WHERE suite = '\(quoted)';
            UPDATE typed_defaults SET value = '{"integer": "5"}', version = 0 WHERE suite = '\(quoted)';
            """
        )
        #expect(
            await Fixture.eventually(within: .seconds(15)) { running.value(forKey: "k") == .integer(5) },
            "\(DiagnosticLog.shared.diagnostics(forSuite: suite))"
        )
        #expect(await Fixture.eventually(within: .seconds(15)) { newcomer.value(forKey: "k") == .integer(2) })
        try newcomer.flush()
        #expect(await Fixture.eventually { running.value(forKey: "k") == .integer(2) })
    }

    /// A child forked without `exec` never waits for good.
    ///
    /// It has a copy of the connection's socket but not the event loop or the threads that answer on it, so a
    /// wait there would last for good. It reads what the parent knew, refuses writes
    /// with a typed error at once, and exits; the parent goes on.
    @Test("a child forked without exec never hangs: writes are refused with the reason, and the parent goes on")
    func forkWithoutExec() async throws {
        let cluster = try Fixture.cluster()
        let suite = Fixture.suite("forked")
        let helper = try Fixture.storeHelper(["fork", cluster.url(), suite, "k"])
        defer { helper.removeFiles() }
        let status = await helper.wait(timeout: .seconds(40))
        #expect(status == 0, "status \(status): \(helper.output) \(helper.errors)")
        let output = helper.output
        #expect(output.contains("child-read=1\n"), "\(output)")
        #expect(output.contains("child-flush=writing suite"), "\(output)")
        #expect(output.contains("forked (without exec)"), "\(output)")
        #expect(output.contains("child-status=0\n"), "\(output)")
        #expect(output.contains("parent-flush=ok\n"), "\(output)")
        let stored = try cluster.psql(
            "SELECT value->>'integer' FROM typed_defaults WHERE suite = '\(suite)' AND key = 'k'"
        )
        #expect(stored == "3")
    }
}
