import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// A uniquely named suite in a temporary directory of its own, never the real `~/.config`.
///
/// The directory is removed when the suite goes away. A child process run with
/// `Helper.run(_:configDirectory:)` and `directory.url` opens the same file by the suite's plain name.
final class IsolatedSuite: Sendable {
    let name: String
    let directory = TemporaryConfigDirectory()
    let adapter: DefaultsAdapter<DefaultsKeys>

    /// Creates the suite, with `fileContents` written to its file first as another program would have left it.
    ///
    /// Writes are immediate unless a test asks otherwise, so a test can look at the file right after a write.
    init(
        fileContents: [String: Any]? = nil,
        launchArguments: LaunchArguments = .ignored,
        writePolicy: WritePolicy = .immediate
    ) {
        DiagnosticsRecorder.install()
        name = "tests.\(UUID().uuidString)"
        #if TYPED_DEFAULTS_FOUNDATION_STORAGE
        // Foundation keeps the suite in the same file a child process with this config directory uses.
        UserDefaultsStore.testLocations.withLock { [name, directory] in
            $0.suites[name] = directory.url.path + "/" + name
        }
        #endif
        if let fileContents {
            let data = try! PropertyListSerialization.data(fromPropertyList: fileContents, format: .xml, options: 0)
            try! data.write(to: directory.plist(name))
        }
        adapter = try! Self.adapter(
            name,
            directory: directory.url,
            keyStore: DefaultsKeys(),
            launchArguments: launchArguments,
            writePolicy: writePolicy
        )
    }

    var fileURL: URL { directory.plist(name) }

    /// The suite by name: in a ``FileStore`` in `directory`, or through `UserDefaults` in a build that stores
    /// there (where the name leads to the same file).
    private static func adapter<KeyStore>(
        _ name: String,
        directory: URL,
        keyStore: KeyStore,
        launchArguments: LaunchArguments,
        writePolicy: WritePolicy
    ) throws(DefaultsError) -> DefaultsAdapter<KeyStore> {
        #if TYPED_DEFAULTS_FOUNDATION_STORAGE
        try DefaultsAdapter(
            suiteName: name,
            keyStore: keyStore,
            launchArguments: launchArguments,
            writePolicy: writePolicy
        )
        #else
        try DefaultsAdapter(
            suiteName: name,
            directory: directory,
            keyStore: keyStore,
            launchArguments: launchArguments,
            writePolicy: writePolicy
        )
        #endif
    }

    /// Another adapter on the same suite.
    func secondAdapter<KeyStore>(
        keyStore: KeyStore,
        launchArguments: LaunchArguments = .ignored,
        writePolicy: WritePolicy = .immediate
    ) throws -> DefaultsAdapter<KeyStore> {
        try Self.adapter(
            name,
            directory: directory.url,
            keyStore: keyStore,
            launchArguments: launchArguments,
            writePolicy: writePolicy
        )
    }

    /// What the suite's file holds right now, parsed by Foundation's property-list reader.
    func fileContents() throws -> [String: Any] { try directory.contents(ofSuite: name) }

    /// An independent `UserDefaults` instance on the same file.
    func foundationDefaults() -> UserDefaults { UserDefaults(suiteName: directory.url.path + "/" + name)! }

    /// The diagnostics reported for this suite so far.
    var diagnostics: [DefaultsDiagnostic] { DiagnosticsRecorder.diagnostics(forSuite: name) }

    // Coalesced writes still pending would otherwise land after the directory is gone, and recreate it.
    deinit { try? adapter.flush() }
}

/// Collects every diagnostic the test process reports; tests look up their own by suite name.
enum DiagnosticsRecorder {
    private static let recorded = Locked<[DefaultsDiagnostic]>([])

    private static let installation: Void = DefaultsDiagnostics.setHandler { record($0) }

    /// Routes diagnostics here (once for the whole test process).
    static func install() { installation }

    static func record(_ diagnostic: DefaultsDiagnostic) {
        recorded.withLock { $0.append(diagnostic) }
    }

    static func diagnostics(forSuite suite: String) -> [DefaultsDiagnostic] {
        recorded.withLock { $0.filter { $0.suite == suite } }
    }
}

/// A config directory of its own for child processes, removed when it goes away.
final class TemporaryConfigDirectory: Sendable {
    let url: URL

    init() {
        url = Self.root.appendingPathComponent(UUID().uuidString)
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// One directory per test process holds them all, and goes when the process exits: the test runner may
    /// exit before the last tests' objects are released.
    private static let root: URL = {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("TypedDefaultsTests-\(getpid())")
        try! FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        atexit {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("TypedDefaultsTests-\(getpid())")
            try? FileManager.default.removeItem(at: root)
        }
        return root
    }()

    func plist(_ suite: String) -> URL { url.appendingPathComponent(suite + ".plist") }

    func contents(ofSuite suite: String) throws -> [String: Any] {
        #if TYPED_DEFAULTS_FOUNDATION_STORAGE
        // Foundation on Apple platforms writes a suite's file when it sees fit, unless asked to.
        _ = UserDefaults(suiteName: url.path + "/" + suite)?.synchronize()
        #endif
        let data = try Data(contentsOf: plist(suite))
        return try #require(PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
    }

    /// The value of `key` as the `defaults` tool reads it, in a process of its own: as the next program to open
    /// the suite finds it (and the tool leaves the file holding it).
    func valueReadByTool(ofSuite suite: String, key: String) throws -> String {
        let tool = try Helper.run(["read", suite, key], configDirectory: url, program: Helper.tool)
        return tool.output.trimmingCharacters(in: .newlines)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// Runs the package's `TypedDefaultsTestHelper` executable as a real child process.
enum Helper {
    struct Result {
        var status: Int32
        var output: String
        var errors: String
        /// The signal that ended the process (a crash), or `nil` when it exited.
        var signal: Int32? = nil

        /// `key=value` lines of the output.
        var settings: [String: String] {
            Dictionary(
                output.split(separator: "\n")
                    .compactMap { line in
                        line.firstIndex(of: "=").map { (String(line[..<$0]), String(line[line.index(after: $0)...])) }
                    },
                uniquingKeysWith: { _, last in last }
            )
        }
    }

    /// Starts the helper with its output (and errors, or nothing) going to files: a pipe that nobody reads
    /// could fill up and stall it.
    private static func launch(
        _ arguments: [String],
        configDirectory: URL,
        output: URL,
        errors: URL?,
        input: URL? = nil,
        program: URL = executable
    ) throws -> Process {
        let process = Process()
        process.executableURL = program
        if let input { process.standardInput = try FileHandle(forReadingFrom: input) }
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = configDirectory.path
        environment["HOME"] = configDirectory.path
        process.environment = environment
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: output)
        if let errors {
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: errors)
        } else {
            // A running helper's errors go with its output, so a test can wait for what it says there too.
            process.standardError = process.standardOutput
        }
        try process.run()
        return process
    }

    static var executable: URL { product("TypedDefaultsTestHelper") }

    /// The `defaults` command-line tool.
    static var tool: URL { product("defaults") }

    /// An executable of the package, built beside the test binary.
    static func product(_ name: String) -> URL { BuiltProducts.executable(name) }

    /// A helper still running: its output (and errors) so far, and a way to kill it.
    final class Running: Sendable {
        let process: Process
        let outputFile: URL

        fileprivate init(process: Process, outputFile: URL) {
            self.process = process
            self.outputFile = outputFile
        }

        var output: String { (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "" }

        /// Waits (up to `timeout`) until the output contains `text`; returns whether it did.
        func waitForOutput(containing text: String, timeout: Duration = .seconds(20)) -> Bool {
            eventually(within: timeout) { output.contains(text) }
        }

        /// Sends SIGKILL and waits for the process to be gone.
        func kill() {
            sendSignal(SIGKILL, to: process.processIdentifier)
            process.waitUntilExit()
        }

        deinit {
            if process.isRunning { kill() }
            try? FileManager.default.removeItem(at: outputFile)
        }
    }

    /// Starts the helper and returns at once.
    static func start(_ arguments: [String], configDirectory: URL, program: URL = executable) throws -> Running {
        let outputFile = configDirectory.appendingPathComponent(".helper-out-\(UUID().uuidString)")
        let process = try launch(
            arguments,
            configDirectory: configDirectory,
            output: outputFile,
            errors: nil,
            program: program
        )
        return Running(process: process, outputFile: outputFile)
    }

    /// Runs the helper with `arguments`, its config directory and home set to `configDirectory`.
    static func run(
        _ arguments: [String],
        configDirectory: URL,
        input: URL? = nil,
        program: URL = executable
    ) throws -> Result {
        let outputFile = configDirectory.appendingPathComponent(".helper-out-\(UUID().uuidString)")
        let errorFile = configDirectory.appendingPathComponent(".helper-err-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: outputFile)
            try? FileManager.default.removeItem(at: errorFile)
        }
        let process = try launch(
            arguments,
            configDirectory: configDirectory,
            output: outputFile,
            errors: errorFile,
            input: input,
            program: program
        )
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            output: try String(contentsOf: outputFile, encoding: .utf8),
            errors: try String(contentsOf: errorFile, encoding: .utf8),
            signal: process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil
        )
    }
}

/// Waits, up to `timeout`, until `condition` holds; returns whether it did.
///
/// For effects that happen in the background (a coalesced write, a retry), without betting a test on how
/// fast the machine is.
func eventually(within timeout: Duration = .seconds(10), _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        usleep(5000)
    }
    return true
}

/// ``eventually(within:_:)`` for async tests: sleeps without holding a thread of the shared pool, which the
/// awaited work may need.
func eventually(within timeout: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}

/// Runs `body` on a thread of its own; returns whether it finished within `timeout` (a deadlock or hang fails
/// the test instead of stalling the run).
func finishes(within timeout: Double = 20, _ body: @escaping @Sendable () -> Void) -> Bool {
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        body()
        done.signal()
    }
    return done.wait(timeout: .now() + timeout) == .success
}

/// `kill(2)`, under a name that `Helper.Running.kill()` does not shadow.
func sendSignal(_ signal: Int32, to process: Int32) {
    kill(process, signal)
}
