import Foundation
import Synchronization
import Testing
import TypedDefaults
import TypedDefaultsPostgres

/// Names, directories and stores of one test's own, so that tests running side by side never share a suite or
/// a local copy.
enum Fixture {
    static func cluster() throws -> PostgresCluster {
        try PostgresCluster.shared.get()
    }

    /// A suite name no other test uses.
    static func suite(_ label: String) -> String {
        "\(label)-\(UUID().uuidString.prefix(8))"
    }

    /// A TCP port on 127.0.0.1 where nothing listens: one the system just gave out and this closed.
    static func closedPort() throws -> Int {
        let descriptor = socket(AF_INET, socketStream, 0)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EINVAL) }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EINVAL) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    #if canImport(Glibc)
    private static let socketStream = Int32(SOCK_STREAM.rawValue)
    #else
    private static let socketStream = SOCK_STREAM
    #endif

    /// A new empty directory under the temporary directory.
    static func directory() -> URL {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("typed-defaults-test-\(UUID())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func options(
        copyIn directory: URL = Fixture.directory(),
        retryLimit: Duration = .seconds(30)
    ) -> PostgresStore.Options {
        var options = PostgresStore.Options()
        options.localCopyDirectory = directory
        options.retryLimit = retryLimit
        options.connectTimeout = .seconds(2)
        return options
    }

    static func store(_ cluster: PostgresCluster, suite: String, options: PostgresStore.Options = options()) throws
        -> PostgresStore
    {
        try PostgresStore(url: cluster.url(), suite: suite, options: options)
    }

    /// Starts `postgres-store-helper` (built beside `fleet-settings`) with `arguments`, with a home of its own.
    static func storeHelper(_ arguments: [String]) throws -> ChildProcess {
        let home = directory()
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        environment["XDG_CACHE_HOME"] = home.appendingPathComponent("cache").path
        return try ChildProcess(
            FleetSettings.executable.deletingLastPathComponent().appendingPathComponent("postgres-store-helper").path,
            arguments,
            environment: environment
        )
    }

    /// Waits until `condition` holds or `timeout` passes; returns whether it held.
    static func eventually(within timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }
}

/// The `fleet-settings` executable, built beside the tests (or where `FLEET_SETTINGS` says), run as separate
/// processes with a home of the test's own.
struct FleetSettings: Sendable {
    let url: String
    let suite: String
    let home: URL

    static var executable: URL {
        if let path = ProcessInfo.processInfo.environment["FLEET_SETTINGS"] { return URL(fileURLWithPath: path) }
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !directory.path.isEmpty, directory.path != "/" {
            let candidate = directory.appendingPathComponent("fleet-settings")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: "fleet-settings")
    }

    init(url: String, suite: String, home: URL = Fixture.directory()) {
        self.url = url
        self.suite = suite
        self.home = home
    }

    /// A started process running `arguments` after `--url` and `--suite`.
    func start(_ arguments: [String]) throws -> ChildProcess {
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        environment["XDG_CACHE_HOME"] = home.appendingPathComponent("cache").path
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        return try ChildProcess(
            Self.executable.path,
            ["--url", url, "--suite", suite] + arguments,
            environment: environment
        )
    }

    struct Outcome: Sendable {
        let status: Int32
        let output: String
        let errors: String
        let seconds: Double
    }

    /// Runs `arguments` to the end.
    func run(_ arguments: [String]) async throws -> Outcome {
        let started = ContinuousClock.now
        let child = try start(arguments)
        defer { child.removeFiles() }
        let status = await child.wait()
        let elapsed = ContinuousClock.now - started
        return Outcome(
            status: status,
            output: child.output,
            errors: child.errors,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        )
    }
}

/// A value shared between a test and the closures it hands out.
final class Shared<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result { mutex.withLock { body(&$0) } }
}
