import Foundation
import PostgresNIO
import Synchronization
import Testing
import TypedDefaults
import TypedDefaultsPostgres

/// Diagnostics, collected for the suites of the tests that look at them (tests run side by side).
final class DiagnosticLog: Sendable {
    static let shared = DiagnosticLog()
    private let entries = Shared<[DefaultsDiagnostic]>([])

    private init() {
        DefaultsDiagnostics.setHandler { [entries] diagnostic in entries.withLock { $0.append(diagnostic) } }
    }

    func diagnostics(forSuite suite: String) -> [DefaultsDiagnostic] {
        entries.withLock { $0.filter { $0.suite == suite } }
    }
}

@Suite("PostgresStore")
struct StoreTests {
    @Test(
        "suite and key names spelled like SQL are only names",
        arguments: [
            "x'; DROP TABLE typed_defaults; --",
            #"quote " and \ backslash"#,
            "Robert'); DELETE FROM typed_defaults_suites; --",
            "$1 $$ dollar quoted $$",
            "ünïcödé e\u{301} 🚀",
        ]
    )
    func hostileNames(_ name: String) async throws {
        let cluster = try Fixture.cluster()
        let suite = name + Fixture.suite("")
        let writer = try Fixture.store(cluster, suite: suite)
        let defaults = DefaultsAdapter(store: writer, keyStore: DefaultsKeys())
        try defaults.set(name, for: Key<String>(name, default: ""))
        try defaults.set(7, for: Key<Int>("plain", default: 0))
        try await defaults.flush()

        let reader = try Fixture.store(cluster, suite: suite)
        #expect(reader.value(forKey: name) == .string(name))
        #expect(reader.value(forKey: "plain") == .integer(7))
        #expect(try cluster.psql("SELECT count(*) FROM typed_defaults WHERE suite = 'nothing'") == "0")
        let escaped = suite.replacingOccurrences(of: "'", with: "''")
        #expect(try cluster.psql("SELECT count(*) FROM typed_defaults WHERE suite = '\(escaped)'") == "2")
    }

    /// A configuration with a Unix socket path (a server on the same machine, without TCP) works as one with a
    /// host does: the store opens that socket itself, as it does its TCP sockets.
    @Test("a store reaches the server through its Unix socket")
    func unixSocket() throws {
        let cluster = try Fixture.cluster()
        let suite = Fixture.suite("unix")
        let configuration = PostgresConnection.Configuration(
            unixSocketPath: cluster.unixSocketPath,
            username: PostgresCluster.user,
            password: nil,
            database: "postgres"
        )
        let local = try PostgresStore(configuration: configuration, suite: suite, options: Fixture.options())
        _ = try local.apply(DefaultsBatch(writes: ["path": .string("unix")]))
        try local.flush()
        let overTCP = try Fixture.store(cluster, suite: suite)
        #expect(overTCP.value(forKey: "path") == .string("unix"))
    }

    /// A host given by name is looked up, and each of its addresses tried in turn: `localhost` is `::1` and
    /// `127.0.0.1`, and the server listens on the second only.
    @Test("a host name is looked up and each of its addresses tried")
    func hostName() throws {
        let cluster = try Fixture.cluster()
        let suite = Fixture.suite("name")
        let named = try PostgresStore(
            url: "postgres://\(PostgresCluster.user)@localhost:\(cluster.port)/postgres",
            suite: suite,
            options: Fixture.options()
        )
        _ = try named.apply(DefaultsBatch(writes: ["host": .string("localhost")]))
        try named.flush()
        #expect(try Fixture.store(cluster, suite: suite).value(forKey: "host") == .string("localhost"))
    }

    /// When no address of a host answers, the error names each address and what it said.
    @Test("an error names each address that was tried")
    func unreachableAddressesAreNamed() throws {
        let unused = try Fixture.closedPort()
        let store = try PostgresStore(
            url: "postgres://\(PostgresCluster.user)@localhost:\(unused)/postgres",
            suite: Fixture.suite("refused"),
            options: Fixture.options(retryLimit: .milliseconds(300))
        )
        _ = try store.apply(DefaultsBatch(writes: ["k": .integer(1)]))
        var message = ""
        do {
            try store.flush()
        } catch {
            message = "\(error)"
        }
        #expect(message.contains("127.0.0.1:"), "\(message)")
        #expect(message.localizedCaseInsensitiveContains("refused"), "\(message)")
    }

    @Test("a NUL character, which PostgreSQL text cannot hold, is a typed error")
    func nulCharacters() throws {
        let cluster = try Fixture.cluster()
        #expect(throws: DefaultsError.self) { try Fixture.store(cluster, suite: "nul\u{0}suite") }
        let store = try Fixture.store(cluster, suite: Fixture.suite("nul-key"))
        let defaults = DefaultsAdapter(store: store, keyStore: DefaultsKeys())
        #expect(throws: DefaultsError.self) { try defaults.set(1, for: Key<Int>("a\u{0}b", default: 0)) }
        #expect(throws: DefaultsError.self) { try store.apply(DefaultsBatch(writes: ["k": .string("a\u{0}b")])) }
        #expect(store.snapshot().isEmpty)
    }

    @Test("values are readable in psql and come back bit for bit")
    func readableAndExact() throws {
        let cluster = try Fixture.cluster()
        let suite = Fixture.suite("readable")
        let store = try Fixture.store(cluster, suite: suite)
        // A stored `.date` has whole seconds (a property list's); a Key<Date> keeps every bit, below.
        let date = Date(timeIntervalSinceReferenceDate: 817_488_881)
        let precise = Date(timeIntervalSinceReferenceDate: 817_488_881.123_456_7)
        let values: [String: PropertyListValue] = [
            "count": .integer(42),
            "big": .unsignedInteger(.max),
            "negativeZero": .double(-0.0),
            "nan": .double(.nan),
            "infinity": .double(-.infinity),
            "tenth": .double(0.1),
            "date": .date(date),
            "data": .data(Data([0, 1, 2, 255])),
            "nested": .dictionary(["list": .array([.bool(true), .string("tab\tand\nline"), .dictionary([:])])]),
        ]
        _ = try store.apply(DefaultsBatch(writes: values.mapValues { $0 }))
        let preciseKey = Key<Date>("precise", default: .distantPast)
        try DefaultsAdapter(store: store, keyStore: DefaultsKeys()).set(precise, for: preciseKey)
        try store.flush()

        #expect(
            try cluster.psql("SELECT value->>'integer' FROM typed_defaults WHERE suite = '\(suite)' AND key = 'count'")
                == "42"
        )
        #expect(
            try cluster.psql(
                "SELECT value->>'real' FROM typed_defaults WHERE suite = '\(suite)' AND key = 'negativeZero'"
            ) == "-0.0"
        )
        #expect(
            try cluster.psql("SELECT value->>'utc' FROM typed_defaults WHERE suite = '\(suite)' AND key = 'date'")
                .hasPrefix("2026-")
        )

        let reader = try Fixture.store(cluster, suite: suite)
        for (key, value) in values {
            #expect(
                reader.value(forKey: key).isIdentical(to: value),
                "\(key): \(String(describing: reader.value(forKey: key)))"
            )
        }
        let read = DefaultsAdapter(store: reader, keyStore: DefaultsKeys())[preciseKey]
        #expect(read.timeIntervalSinceReferenceDate.bitPattern == precise.timeIntervalSinceReferenceDate.bitPattern)
    }

    @Test("another instance's changes arrive in order, once each, with old and new values")
    func changesFromAnotherInstance() async throws {
        let cluster = try Fixture.cluster()
        let suite = Fixture.suite("changes")
        let listener = DefaultsAdapter(store: try Fixture.store(cluster, suite: suite), keyStore: DefaultsKeys())
        let key = Key<Int>("counter", default: 0)
        let heard = Shared<[(Int, Int)]>([])
        let observation = listener.observe(key) { change in
            heard.withLock { $0.append((change.oldValue, change.newValue)) }
        }
        defer { observation.invalidate() }

        let writer = DefaultsAdapter(store: try Fixture.store(cluster, suite: suite), keyStore: DefaultsKeys())
        for value in 1...20 {
            try writer.set(value, for: key)
            try await writer.flush()
        }
        try writer.set(nil, for: Key<Int?>("counter"))
        try await writer.flush()
        let expected = (0..<20).map { ($0, $0 + 1) } + [(20, 0)]
        let arrived = await Fixture.eventually { heard.withLock { $0.count } >= expected.count }
        #expect(arrived)
        let got = heard.withLock { $0 }
        #expect(got.map(\.0) == expected.map(\.0))
        #expect(got.map(\.1) == expected.map(\.1))
        #expect(listener[key] == 0)
    }

    @Test("modify is exact between instances of one process")
    func modifyBetweenInstances() async throws {
        let cluster = try Fixture.cluster()
        let suite = Fixture.suite("modify")
        let key = Key<Int>("count", default: 0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                let defaults = DefaultsAdapter(
                    store: try Fixture.store(cluster, suite: suite),
                    keyStore: DefaultsKeys()
                )
                group.addTask {
                    for _ in 0..<100 { try defaults.modify(key) { $0 += 1 } }
                }
            }
            try await group.waitForAll()
        }
        let reader = try Fixture.store(cluster, suite: suite)
        #expect(reader.value(forKey: "count") == .integer(400))
    }

    @Test("no password reaches a diagnostic or an error")
    func passwordHidden() throws {
        let password = "Pa55-w0rd-\(UUID().uuidString.prefix(6))"
        let suite = Fixture.suite("password")
        // A port where no server listens: connecting fails at once.
        let url = "postgres://someone:\(password)@127.0.0.1:9/nothing"
        var options = Fixture.options(retryLimit: .seconds(1))
        options.connectTimeout = .milliseconds(500)
        _ = DiagnosticLog.shared
        let store = try PostgresStore(url: url, suite: suite, options: options)
        let defaults = DefaultsAdapter(store: store, keyStore: DefaultsKeys())
        var thrown: DefaultsError?
        do {
            try defaults.set(1, for: Key<Int>("k", default: 0))
            try defaults.flush()
        } catch {
            thrown = error
        }
        let error = try #require(thrown)
        guard case .writeFailed = error else {
            Issue.record("expected writeFailed, got \(error)")
            return
        }
        #expect(!error.description.contains(password))
        #expect(!String(reflecting: error).contains(password))
        #expect(!"\(store)".contains(password))
        let diagnostics = DiagnosticLog.shared.diagnostics(forSuite: suite)
        #expect(diagnostics.contains { $0.kind == .storeUnavailable })
        for diagnostic in diagnostics { #expect(!diagnostic.description.contains(password)) }
        #expect(throws: PostgresURLError.self) { try PostgresStore(url: "mysql://a:\(password)@h/db", suite: suite) }
        do {
            _ = try PostgresStore(url: "mysql://a:\(password)@h/db", suite: suite)
        } catch {
            #expect(!"\(error)".contains(password))
        }
    }
}
