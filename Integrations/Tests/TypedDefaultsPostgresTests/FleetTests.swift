import Foundation
import Testing
import TypedDefaults
import TypedDefaultsPostgres

#if canImport(Glibc)
import Glibc
#endif

/// Separate processes, through the example's `fleet-settings` command line, against a server of the tests' own.
@Suite("Fleet of processes")
struct FleetTests {
    @Test("4 processes × 1,000 increments of one key end at exactly 4,000")
    func contendedIncrements() async throws {
        let cluster = try Fixture.cluster()
        let fleet = FleetSettings(url: cluster.url(), suite: Fixture.suite("increments"))
        let outcomes = try await withThrowingTaskGroup(of: FleetSettings.Outcome.self) { group in
            for _ in 0..<4 {
                let member = FleetSettings(url: fleet.url, suite: fleet.suite)
                group.addTask { try await member.run(["increment", "count", "1000"]) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for outcome in outcomes { #expect(outcome.status == 0, "\(outcome.errors)") }
        #expect(outcomes.compactMap { Int($0.output.trimmingCharacters(in: .whitespacesAndNewlines)) }.max() == 4000)
        let final = try await fleet.run(["get", "count"])
        #expect(final.output == "4000\n")
    }

    @Test("a watcher in another process hears 20 changes, in order, and ends on SIGTERM")
    func watcherHearsEveryChange() async throws {
        let cluster = try Fixture.cluster()
        let fleet = FleetSettings(url: cluster.url(), suite: Fixture.suite("watch"))
        let watcher = try fleet.start(["watch", "level"])
        defer { watcher.removeFiles() }
        #expect(await Fixture.eventually { watcher.output == "(none)\n" }, "watch printed \(watcher.output)")

        let writer = DefaultsAdapter(
            store: try Fixture.store(cluster, suite: fleet.suite),
            keyStore: DefaultsKeys(),
            writePolicy: .immediate
        )
        for level in 1...20 { try writer.set(level, for: Key<Int>("level", default: 0)) }

        let expected = (["(none)"] + (1...20).map(String.init)).joined(separator: "\n") + "\n"
        #expect(await Fixture.eventually { watcher.output == expected }, "watch printed \(watcher.output)")
        watcher.signal(SIGTERM)
        let status = await watcher.wait()
        #expect(status == 128 + SIGTERM)
    }

    @Test("under .immediate a set has committed when it returns: SIGKILL right after loses nothing")
    func immediateSurvivesKill() async throws {
        let cluster = try Fixture.cluster()
        let suite = Fixture.suite("sigkill")
        let helper = try Fixture.storeHelper(["hold", cluster.url(), suite, "answer", "42", "immediate"])
        defer { helper.removeFiles() }
        #expect(await Fixture.eventually { helper.output == "set\n" }, "\(helper.errors)")
        helper.signal(SIGKILL)
        #expect(await helper.wait() == 128 + SIGKILL)
        let stored = try cluster.psql(
            "SELECT value->>'integer' FROM typed_defaults WHERE suite = '\(suite)' AND key = 'answer'"
        )
        #expect(stored == "42")
    }

    @Test("a coalesced write still in memory is lost to SIGTERM's default action, which ends the program at once")
    func coalescedLostToSignal() async throws {
        // What Docs/SharedSettings.md says a store of the program's own gives up: the library catches no signal.
        let cluster = try Fixture.cluster()
        let suite = Fixture.suite("sigterm")
        let helper = try Fixture.storeHelper(["hold", cluster.url(), suite, "answer", "42", "coalesced"])
        defer { helper.removeFiles() }
        #expect(await Fixture.eventually { helper.output == "set\n" }, "\(helper.errors)")
        helper.signal(SIGTERM)
        #expect(await helper.wait() == 128 + SIGTERM)
        let stored = try cluster.psql("SELECT count(*) FROM typed_defaults WHERE suite = '\(suite)'")
        #expect(stored == "0")
    }
}

/// Tests that stop and start a server: each has a cluster of its own.
@Suite("Outages")
struct OutageTests {
    @Test("a server restart in the middle of contended increments: every process finishes, the count is exact")
    func restartDuringIncrements() async throws {
        let cluster = try PostgresCluster()
        let fleet = FleetSettings(url: cluster.url(), suite: Fixture.suite("restart"))
        #expect(try await fleet.run(["set", "count", "0"]).status == 0)
        let members = try (0..<4)
            .map { _ in
                try FleetSettings(url: fleet.url, suite: fleet.suite).start(["increment", "count", "300"])
            }
        defer { for member in members { member.removeFiles() } }
        try await Task.sleep(for: .milliseconds(700))
        try cluster.stop()
        try await Task.sleep(for: .seconds(2))
        try cluster.start()
        for member in members {
            let status = await member.wait()
            #expect(status == 0, "\(member.errors)")
        }
        let final = try await fleet.run(["get", "count"])
        #expect(final.output == "1200\n")
        #expect(try cluster.psql("SELECT value->>'integer' FROM typed_defaults WHERE key = 'count'") == "1200")
    }

    @Test("a change and a removal made while a watcher was disconnected reach it when it reconnects")
    func catchUpAfterDisconnection() async throws {
        let cluster = try PostgresCluster()
        let fleet = FleetSettings(url: cluster.url(), suite: Fixture.suite("catch-up"))
        #expect(try await fleet.run(["set", "flag", "1"]).status == 0)
        #expect(try await fleet.run(["set", "other", "1"]).status == 0)
        let watcher = try fleet.start(["watch", "flag"])
        defer { watcher.removeFiles() }
        #expect(await Fixture.eventually { watcher.output == "1\n" }, "watch printed \(watcher.output)")

        // Frozen, its connection cut by the server: it hears nothing of what follows until it runs again.
        watcher.signal(SIGSTOP)
        _ = try cluster.psql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()"
        )
        let writer = try Fixture.store(cluster, suite: fleet.suite)
        _ = try writer.apply(DefaultsBatch(writes: ["flag": .integer(2)]))
        try writer.flush()
        _ = try writer.apply(DefaultsBatch(writes: ["flag": nil, "other": .integer(2)]))
        try writer.flush()
        watcher.signal(SIGCONT)

        // Each version the server's history still holds, in order: the change, then the removal.
        #expect(await Fixture.eventually { watcher.output == "1\n2\n(none)\n" }, "watch printed \(watcher.output)")
        watcher.signal(SIGTERM)
        _ = await watcher.wait()
    }

    @Test("with the server stopped, get returns the last value this machine saw and set fails clearly")
    func serverStopped() async throws {
        let cluster = try PostgresCluster()
        let fleet = FleetSettings(url: cluster.url(), suite: Fixture.suite("stopped"))
        #expect(try await fleet.run(["set", "mode", "blue"]).status == 0)
        #expect(try await fleet.run(["set", "gone", "1"]).status == 0)
        // Another machine (a home of its own) removes a key and changes one while this one is not looking.
        let elsewhere = try PostgresStore(url: cluster.url(), suite: fleet.suite, options: Fixture.options())
        #expect(try await fleet.run(["get", "mode"]).output == "blue\n")
        _ = try elsewhere.apply(DefaultsBatch(writes: ["gone": nil, "mode": .string("green")]))
        try elsewhere.flush()
        #expect(try await fleet.run(["get", "gone"]).output == "(none)\n")
        try cluster.stop()

        let get = try await fleet.run(["get", "mode"])
        #expect(get.status == 0)
        #expect(get.output == "green\n")
        #expect(get.errors.contains("cannot reach PostgreSQL"), "\(get.errors)")

        let set = try await fleet.run(["set", "mode", "red"])
        #expect(set.status != 0)
        #expect(set.seconds < 60)
        #expect(set.errors.contains("fleet-settings: writing"), "\(set.errors)")
        #expect(set.errors.contains("could not be reached"), "\(set.errors)")

        try cluster.start()
        #expect(try await fleet.run(["get", "mode"]).output == "green\n")
    }
}
