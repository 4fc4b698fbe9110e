#if os(Linux)
import Foundation

/// A child process of this executable, as the parent sees it.
///
/// Started with `posix_spawn` and waited for with `waitpid`, not with Foundation's `Process`: on Linux,
/// `Process.waitUntilExit()` polls its run loop every 50 ms, which would add up to 50 ms of noise to every
/// first-read measurement.
final class ChildProcess {
    let spec: Child.Spec
    private let pid: pid_t
    /// The read end of the pipe that is the child's standard output.
    private let output: Int32
    private var buffered: [UInt8] = []
    private var exited = false

    /// Starts the child; its standard error is this process's.
    init(_ spec: Child.Spec) throws {
        self.spec = spec
        var environment = ProcessInfo.processInfo.environment
        environment[Child.variable] = String(decoding: try JSONEncoder().encode(spec), as: UTF8.self)
        let executable = Self.executable

        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw ScaleError("pipe() failed: errno \(errno)") }
        // Only the child's standard output gets the write end; no other child inherits either end.
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        defer { close(pipeEnds[1]) }

        #if os(Linux)
        var actions = posix_spawn_file_actions_t()
        #else
        var actions: posix_spawn_file_actions_t?
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], STDOUT_FILENO)

        let arguments = [strdup(executable)] + [nil]
        let variables = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in arguments { free(pointer) }
            for pointer in variables { free(pointer) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, nil, arguments, variables)
        guard status == 0 else {
            close(pipeEnds[0])
            throw ScaleError("could not start \(executable): posix_spawn error \(status)")
        }
        self.pid = pid
        output = pipeEnds[0]
    }

    deinit {
        terminate()
        close(output)
    }

    /// Runs a child to its end: the fields it reported, and the wall time from starting it to its exit.
    static func run(_ spec: Child.Spec) throws -> (fields: [String: String], wall: Double) {
        let start = ContinuousClock.now
        let child = try ChildProcess(spec)
        let line = try child.readLine()
        try child.wait()
        let wall = start.duration(to: .now).seconds
        return (try child.fields(line), wall)
    }

    /// This executable.
    private static var executable: String {
        // portability: Linux's exact path when there is one; the bundle's or the command's elsewhere.
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        return Bundle.main.executablePath ?? CommandLine.arguments[0]
    }

    /// The next line the child writes; throws if it ends without one.
    func readLine() throws -> String {
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                return line
            }
            let count = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                try wait()
                throw ScaleError("the \(spec.mode.rawValue) child ended without reporting")
            }
            buffered.append(contentsOf: chunk[..<count])
        }
    }

    /// The fields of the next line the child writes.
    func readFields() throws -> [String: String] {
        try fields(try readLine())
    }

    /// Waits for the child to exit; throws unless it exited with status 0.
    func wait() throws {
        guard !exited else { return }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw ScaleError("waitpid failed: errno \(errno)") }
        }
        exited = true
        // WIFEXITED and WEXITSTATUS, which Swift does not import: exited normally, with status 0.
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw ScaleError("the \(spec.mode.rawValue) child process failed (wait status \(status); see above)")
        }
    }

    /// Ends the child if it is still running (after the parent failed).
    func terminate() {
        guard !exited else { return }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        exited = true
    }

    private func fields(_ line: String) throws -> [String: String] {
        var fields: [String: String] = [:]
        for field in line.split(separator: " ") {
            let parts = field.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else {
                throw ScaleError("the \(spec.mode.rawValue) child reported \"\(line)\"")
            }
            fields[String(parts[0])] = String(parts[1])
        }
        return fields
    }
}

extension [String: String] {
    /// A number the child reported; throws if it is missing.
    func number(_ name: String) throws -> Double {
        guard let text = self[name], let value = Double(text) else {
            throw ScaleError("a child did not report \(name) (it reported \(self))")
        }
        return value
    }
}
#endif
