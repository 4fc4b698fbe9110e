import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL server of the tests' own.
///
/// A new cluster in a temporary directory, on 127.0.0.1 and a free port, stopped when the test process exits. Tests never touch a server they did not start.
///
/// As root, the server runs as the `postgres` user (PostgreSQL refuses to run as root). The binaries are found
/// under `/usr/lib/postgresql/*/bin` or on `PATH`; without them the tests fail, saying so.
final class PostgresCluster: Sendable {
    let directory: URL
    let port: Int
    static let user = "typeddefaults"

    /// One cluster for every test that does not stop or restart its server.
    static let shared: Result<PostgresCluster, ClusterError> = Result { () throws(ClusterError) in try PostgresCluster()
    }

    struct ClusterError: Error, CustomStringConvertible {
        let description: String
    }

    /// A URL for the cluster's `postgres` database, with `password` in it if given (the cluster trusts every
    /// local connection, so a password is accepted and ignored).
    func url(password: String? = nil, database: String = "postgres") -> String {
        "postgres://\(Self.user)\(password.map { ":\($0)" } ?? "")@127.0.0.1:\(port)/\(database)"
    }

    /// The path of the server's Unix socket.
    var unixSocketPath: String { directory.appendingPathComponent(".s.PGSQL.\(port)").path }

    /// A new empty database, for a test that must see what happens before the tables exist, or that watches
    /// the server's sessions without another test's in view.
    func createDatabase(_ label: String) throws(ClusterError) -> String {
        let name = "\(label)_\(UUID().uuidString.prefix(8).lowercased())"
        _ = try psql("CREATE DATABASE \(name)")
        return name
    }

    init() throws(ClusterError) {
        directory = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("typed-defaults-pg-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if getuid() == 0 {
            _ = try Self.run("/bin/chown", ["postgres:postgres", directory.path])
            _ = try Self.run("/bin/chmod", ["700", directory.path])
        }
        _ = try Self.tool("initdb", ["-D", directory.path, "-A", "trust", "-U", Self.user, "--no-sync", "-E", "UTF8"])
        var started: Int?
        for _ in 0..<8 {
            let candidate = Int.random(in: 20_000..<60_000)
            if (try? Self.start(directory, port: candidate)) != nil {
                started = candidate
                break
            }
        }
        guard let started else { throw ClusterError(description: "PostgreSQL did not start on any of 8 ports") }
        port = started
        Self.registerForStop(directory)
    }

    private static func start(_ directory: URL, port: Int) throws(ClusterError) {
        let options =
            "-k \(directory.path) -c listen_addresses=127.0.0.1 -p \(port) -c fsync=off -c max_connections=200"
        _ = try tool(
            "pg_ctl",
            ["-D", directory.path, "-o", options, "-l", directory.appendingPathComponent("log").path, "-w", "start"]
        )
    }

    /// Starts the server again on its port, after ``stop()``.
    func start() throws(ClusterError) {
        try Self.start(directory, port: port)
    }

    /// Stops the server at once: every connection drops, and transactions in flight are rolled back.
    func stop() throws(ClusterError) {
        _ = try Self.tool("pg_ctl", ["-D", directory.path, "-m", "immediate", "-w", "stop"])
    }

    /// Stops and starts the server: what instances see of a restart for maintenance.
    func restart() throws(ClusterError) {
        try stop()
        try start()
    }

    /// Runs `statement` with psql as the cluster's superuser (or `user`) and returns what it prints, unaligned.
    func psql(_ statement: String, database: String = "postgres", user: String = PostgresCluster.user)
        throws(ClusterError) -> String
    {
        try Self.run(Self.binary("psql"), psqlArguments(statement, database: database, user: user))
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Dumps `database` to `file` with pg_dump's custom format, as a backup would.
    func dump(_ database: String, to file: URL) throws(ClusterError) {
        _ = try Self.run(
            Self.binary("pg_dump"),
            ["-h", "127.0.0.1", "-p", "\(port)", "-U", Self.user, "-Fc", "-f", file.path, database]
        )
    }

    /// Restores `file` into `database` over what is there (`--clean`), as an operator restoring a backup would.
    func restore(_ database: String, from file: URL) throws(ClusterError) {
        _ = try Self.run(
            Self.binary("pg_restore"),
            ["-h", "127.0.0.1", "-p", "\(port)", "-U", Self.user, "--clean", "--if-exists", "-d", database, file.path]
        )
    }

    /// Starts psql running `statement` without waiting for it: a session that holds a lock while the test
    /// does something else.
    func startPsql(_ statement: String, database: String = "postgres", user: String = PostgresCluster.user) throws
        -> ChildProcess
    {
        try ChildProcess(Self.binary("psql"), psqlArguments(statement, database: database, user: user))
    }

    private func psqlArguments(_ statement: String, database: String, user: String = PostgresCluster.user) -> [String] {
        ["-X", "-A", "-t", "-h", "127.0.0.1", "-p", "\(port)", "-U", user, "-d", database, "-c", statement]
    }

    // MARK: Processes

    private static let binaryDirectory: String? = {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return versions.compactMap(Int.init).sorted().last.map { "/usr/lib/postgresql/\($0)/bin" }
    }()

    private static func binary(_ name: String) -> String {
        if let directory = binaryDirectory, FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
            return "\(directory)/\(name)"
        }
        return "/usr/bin/env"
    }

    /// Runs a server program, as `postgres` when this process is root.
    private static func tool(_ name: String, _ arguments: [String]) throws(ClusterError) -> String {
        let path = binary(name)
        let command = path == "/usr/bin/env" ? [name] + arguments : [path] + arguments
        guard path != "/usr/bin/env" || (try? run("/usr/bin/env", ["which", name])) != nil else {
            throw ClusterError(
                description:
                    "PostgreSQL's \(name) is not installed (apt-get install -y postgresql); these tests need a server of their own"
            )
        }
        if getuid() == 0 {
            return try run("/usr/sbin/runuser", ["-u", "postgres", "--"] + command)
        }
        return try run(command[0], Array(command.dropFirst()))
    }

    @discardableResult
    static func run(_ path: String, _ arguments: [String]) throws(ClusterError) -> String {
        let child: ChildProcess
        do {
            child = try ChildProcess(path, arguments)
        } catch {
            throw ClusterError(description: "cannot run \(path): \(error)")
        }
        defer { child.removeFiles() }
        let status = child.waitBlocking()
        let text = child.output + child.errors
        guard status == 0 else {
            throw ClusterError(
                description: "\(path) \(arguments.joined(separator: " ")) failed (status \(status)): \(text)"
            )
        }
        return text
    }

    // MARK: Stopping at exit

    private static let running = RunningClusters()

    private static func registerForStop(_ directory: URL) {
        if running.add(directory.path) {
            atexit {
                for path in PostgresCluster.running.all {
                    let command = ["-D", path, "-m", "immediate", "stop"]
                    _ = try? PostgresCluster.tool("pg_ctl", command)
                    try? FileManager.default.removeItem(atPath: path)
                }
            }
        }
    }
}

/// The clusters to stop at exit.
private final class RunningClusters: @unchecked Sendable {
    private let lock = NSLock()
    // Read and written only while holding `lock`.
    private var paths: [String] = []

    /// Adds `path`; returns whether it is the first.
    func add(_ path: String) -> Bool {
        lock.withLock {
            paths.append(path)
            return paths.count == 1
        }
    }

    var all: [String] { lock.withLock { paths } }
}
