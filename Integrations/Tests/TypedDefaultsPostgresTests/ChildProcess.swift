import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A program run as a child process with posix_spawn, its output going to files.
///
/// Not Foundation's `Process`,
/// whose wait depends on a run loop and a dispatch source that a test's busy threads can starve.
struct ChildProcess: Sendable {
    let pid: pid_t
    let outputPath: String
    let errorPath: String

    /// Starts `path` with `arguments` and `environment` (the parent's when `nil`); with
    /// `inheritingDescriptors`, the child also gets every descriptor of this process not marked close-on-exec,
    /// as one started with `system` or a plain `posix_spawn` does.
    init(
        _ path: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        inheritingDescriptors: Bool = false
    ) throws {
        let base = NSTemporaryDirectory() + "typed-defaults-child-\(UUID().uuidString)"
        outputPath = base + ".out"
        errorPath = base + ".err"
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        var attributes: posix_spawnattr_t? = nil
        #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // The child gets its three streams and nothing else. Tests run side by side in this process, and a
        // child that inherited their server connections would keep each open after its test closes it: the
        // server would then see no client leave, and a session waiting for a lock would hold it once granted.
        if !inheritingDescriptors {
            #if canImport(Darwin)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_CLOEXEC_DEFAULT))
            #else
            guard let closeFrom = Self.closeFrom else {
                throw POSIXError(
                    .ENOSYS,
                    userInfo: [NSLocalizedDescriptionKey: "posix_spawn needs glibc 2.34 or later"]
                )
            }
            _ = closeFrom(&actions, 3)
            #endif
        }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let pairs = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pair in pairs { free(pair) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, path, &actions, &attributes, argv, pairs)
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EINVAL) }
        self.pid = pid
    }

    #if !canImport(Darwin)
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc module does not
    /// declare.
    private static let closeFrom: CloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np")
        .map {
            unsafeBitCast($0, to: CloseFrom.self)
        }
    #endif

    /// What the child wrote to standard output so far.
    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
    var errors: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    /// Waits for the child to end and returns its exit status (128 + the signal for a signal); after `timeout`,
    /// kills it (status 137), so that a hung child fails its test instead of holding up the run.
    func wait(timeout: Duration = .seconds(150)) async -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let status = exitStatus() { return status }
            if ContinuousClock.now > deadline { kill(pid, SIGKILL) }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Waits without a task (for code that is not async).
    func waitBlocking() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return Self.decode(status)
    }

    /// The exit status if the child ended, else `nil`; reaps it.
    func exitStatus() -> Int32? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        guard result == pid else { return nil }
        return Self.decode(status)
    }

    func signal(_ number: Int32) {
        kill(pid, number)
    }

    private static func decode(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    func removeFiles() {
        try? FileManager.default.removeItem(atPath: outputPath)
        try? FileManager.default.removeItem(atPath: errorPath)
    }

    /// Kills the child, reaps it and removes its files: the cleanup of a child a test leaves running.
    func end() {
        signal(SIGKILL)
        _ = waitBlocking()
        removeFiles()
    }
}
