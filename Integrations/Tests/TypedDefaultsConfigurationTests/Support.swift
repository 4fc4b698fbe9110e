import Foundation
import Synchronization
import Testing
import TypedDefaults

/// A directory of the test's own that stands for `$XDG_CONFIG_HOME` (and `$HOME`), never the user's `~/.config`;
/// removed when it goes away.
final class TemporaryConfigDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("TypedDefaultsConfigurationTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

#if !canImport(Darwin)
/// A uniquely named suite in a temporary directory, with an adapter on it in this process.
final class IsolatedSuite: Sendable {
    let name = "tests.\(UUID().uuidString)"
    let directory: TemporaryConfigDirectory
    let adapter: DefaultsAdapter<DefaultsKeys>

    init() throws {
        directory = try TemporaryConfigDirectory()
        adapter = try DefaultsAdapter(
            suiteName: name,
            directory: directory.url,
            keyStore: DefaultsKeys(),
            launchArguments: .ignored,
            writePolicy: .immediate
        )
    }

    /// Writes with the helper in another process, which opens the suite by name under the same directory;
    /// returns once that process has written and exited.
    ///
    /// Each write is `key`, a type (int, double, bool, string, data, strings or remove) and a value.
    func writeFromAnotherProcess(_ writes: (key: String, type: String, value: String)...) async throws {
        let process = Process()
        process.executableURL = Self.helper
        process.arguments = [name] + writes.flatMap { [$0.key, $0.type, $0.value] }
        process.environment = [
            "XDG_CONFIG_HOME": directory.url.path,
            "HOME": directory.url.path,
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ]
        let errors = Pipe()
        process.standardError = errors
        let exited = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { exited.continuation.yield($0.terminationStatus) }
        try process.run()
        var statuses = exited.stream.makeAsyncIterator()
        let status = await statuses.next()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(status == 0, "helper failed: \(message)")
    }

    /// The helper executable, built beside the test binary.
    private static let helper = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("TypedDefaultsConfigurationTestHelper")
}
#endif

/// Raised when an operation under test did not finish in time.
struct TimedOut: Error, CustomStringConvertible {
    let seconds: Double
    var description: String { "did not finish within \(seconds) s" }
}

/// Runs `body`, cancelling it and throwing ``TimedOut`` if it takes longer than `seconds`.
///
/// A watch that never delivers then fails the test rather than hanging the run: a cancelled watch's sequence
/// ends, so `body` returns.
func withTimeout<Result: Sendable>(
    seconds: Double = 30,
    _ body: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    try await withThrowingTaskGroup(of: Result?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let result = first else { throw TimedOut(seconds: seconds) }
        return result
    }
}

/// What a watch delivered, collected by a task of its own so that a repeat shows up as an extra element: a
/// consumer that waits in the sequence gets every element, where one that looks later gets only the newest.
final class Delivered<Element: Sendable>: Sendable {
    private let elements = Mutex<[Element]>([])

    var all: [Element] { elements.withLock { $0 } }

    /// Collects every element of `updates` until the task is cancelled.
    func collect(_ updates: some AsyncSequence<Element, Never>) async {
        for await element in updates { elements.withLock { $0.append(element) } }
    }

    /// Returns once `count` elements have arrived.
    func wait(forCount count: Int) async throws {
        while elements.withLock({ $0.count }) < count { try await Task.sleep(for: .milliseconds(5)) }
    }
}

/// Runs a watch's handler: collects `updates` into `delivered` while `drive` makes changes, then, after
/// `drive` returns, gives a repeat of the last element time to show before ending the watch.
func collecting<Element: Sendable>(
    _ updates: some AsyncSequence<Element, Never> & Sendable,
    into delivered: Delivered<Element>,
    while drive: @escaping @Sendable () async throws -> Void
) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await delivered.collect(updates) }
        try await drive()
        try await Task.sleep(for: .milliseconds(300))
        group.cancelAll()
    }
}
