// The library's own file store is Linux's; on Apple platforms values live in UserDefaults (see Package.swift).
#if !TYPED_DEFAULTS_FOUNDATION_STORAGE
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif
import Dispatch
import Foundation

/// Flushes every suite before SIGTERM, SIGINT or SIGHUP ends the process by its default action, which skips
/// `atexit`: systemd, Docker, Kubernetes and Ctrl-C end programs that way.
///
/// Only a signal whose action is still the default when the first suite is opened is caught, so a program's
/// own handling (a handler, `SIG_IGN`, a `DispatchSource`, swift-service-lifecycle), set before or after, is
/// never overridden. The handler only writes the signal's number to a pipe; a thread of its own reads it,
/// flushes for at most ``deadline`` (a flush can wait for another process's file lock), then raises the
/// signal again with its default action, so the process ends exactly as it would have, by that signal.
enum ShutdownSignals {
    /// How long the flush may hold up the end: far below Docker's 10 s grace before SIGKILL, far above
    /// a normal flush (milliseconds), with room for a slow disk's `fdatasync`.
    static let deadline: Double = 5

    /// Catches the signals whose action is the default; called once, when the first suite is opened.
    static func install() {
        let signals = [SIGTERM, SIGINT, SIGHUP]
            .filter { signal in
                var current = sigaction()
                return sigaction(signal, nil, &current) == 0 && current.handler == nil
            }
        guard !signals.isEmpty else { return }
        // Made before any handler can read it: from then on, reading the global is one atomic load.
        let pipe = shutdownPipe
        guard pipe.writeEnd >= 0 else { return }
        startThread()
        for signal in signals { catchSignal(signal) }
    }

    private static func catchSignal(_ signal: Int32) {
        var action = sigaction()
        action.handler = shutdownSignalHandler
        // SA_RESETHAND: a second one of the same signal finds the default action and ends the process at once.
        action.sa_flags = Int32(truncatingIfNeeded: SA_RESTART) | Int32(truncatingIfNeeded: SA_RESETHAND)
        // The others wait while the handler runs, which gives them their default action too.
        sigemptyset(&action.sa_mask)
        for other in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&action.sa_mask, other) }
        var previous = sigaction()
        guard sigaction(signal, &action, &previous) == 0 else { return }
        // The program set its own handling since it was looked at: it wins.
        if previous.handler != nil { sigaction(signal, &previous, nil) }
    }

    /// Starts the thread that waits for a caught signal, with every signal blocked: it never runs a handler,
    /// nor takes a signal the program waits for with `sigwait`.
    private static func startThread() {
        var all = sigset_t()
        var saved = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_BLOCK, &all, &saved)
        defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
        let thread = Thread { waitForSignal() }
        thread.name = "TypedDefaults.shutdown"
        thread.start()
    }

    private static func waitForSignal() {
        var byte: UInt8 = 0
        while true {
            let count = read(shutdownPipe.readEnd, &byte, 1)
            if count == 1 { break }
            if count < 0, errno == EINTR { continue }
            return
        }
        let signal = Int32(byte)
        flush(before: signal)
        end(by: signal)
    }

    /// Flushes every suite, waiting at most ``deadline``.
    private static func flush(before signal: Int32) {
        let current = Locked<String?>(nil)
        let finished = runBounded(seconds: deadline) {
            FileStore.flushAllBeforeExit(starting: { suite in current.withLock { $0 = suite } })
        }
        guard !finished else { return }
        let suite = current.withLock { $0 } ?? ""
        let diagnostic = DefaultsDiagnostic(
            kind: .writeFailed,
            suite: suite,
            key: nil,
            message: "flushing before \(name(of: signal)) ends the process did not finish within \(Int(deadline)) s "
                + "(another process may hold the suite's lock file); writes not flushed yet are lost"
        )
        // A diagnostics handler is the program's code: it must not hold up the end either.
        _ = runBounded(seconds: 1) { DefaultsDiagnostics.report(diagnostic, oncePerProcess: false) }
    }

    /// Runs `body` on a thread of its own and waits at most `seconds` for it; returns whether it finished.
    private static func runBounded(seconds: Double, _ body: @escaping @Sendable () -> Void) -> Bool {
        let done = DispatchSemaphore(value: 0)
        Thread {
            body()
            done.signal()
        }
        .start()
        return done.wait(timeout: .now() + seconds) == .success
    }

    /// Ends the process by `signal`'s default action, as it would have ended without TypedDefaults.
    private static func end(by signal: Int32) -> Never {
        var action = sigaction()
        action.handler = nil
        sigaction(signal, &action, nil)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signal)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        raise(signal)
        // Reached only if the program caught the signal again meanwhile: end with the status a shell reports.
        _exit(128 + signal)
    }

    private static func name(of signal: Int32) -> String {
        switch signal {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        case SIGHUP: "SIGHUP"
        default: "signal \(signal)"
        }
    }
}

/// The pipe from the signal handler to the thread, and the process that made it.
///
/// Made before any handler is installed and never changed, so the handler reads it without a lock: once a
/// global is initialized, reading it is one atomic load (`swift_once`'s fast path).
private let shutdownPipe = ShutdownPipe.make()

private struct ShutdownPipe: Sendable {
    let readEnd: Int32
    let writeEnd: Int32
    let owner: pid_t

    static func make() -> ShutdownPipe {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return ShutdownPipe(readEnd: -1, writeEnd: -1, owner: getpid()) }
        // Not inherited by programs this one runs; and the handler never blocks on a full pipe.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        return ShutdownPipe(readEnd: ends[0], writeEnd: ends[1], owner: getpid())
    }
}

/// The handler: in signal context, so only async-signal-safe calls (`getpid`, `write`, `raise`, `sigaction`),
/// no allocation, no lock, and `errno` left as it was.
private func shutdownSignalHandler(_ signal: Int32) {
    let savedErrno = errno
    defer { errno = savedErrno }
    var byte = UInt8(truncatingIfNeeded: signal)
    // A child forked without exec inherits the handler but not the thread that reads the pipe; and a pipe
    // that cannot be written means no flush. Either way, end as by default (SA_RESETHAND restored it).
    guard getpid() == shutdownPipe.owner, write(shutdownPipe.writeEnd, &byte, 1) == 1 else {
        raise(signal)
        return
    }
    // While the flush runs, any second one of these signals ends the process at once.
    restoreDefaultIfCaught(SIGTERM)
    restoreDefaultIfCaught(SIGINT)
    restoreDefaultIfCaught(SIGHUP)
}

/// Gives `signal` its default action back if it is still caught by ``shutdownSignalHandler(_:)``: a handling
/// the program set since is left alone.
private func restoreDefaultIfCaught(_ signal: Int32) {
    var current = sigaction()
    guard sigaction(signal, nil, &current) == 0 else { return }
    let ours: @convention(c) (Int32) -> Void = shutdownSignalHandler
    guard let handler = current.handler,
        unsafeBitCast(handler, to: UnsafeRawPointer.self) == unsafeBitCast(ours, to: UnsafeRawPointer.self)
    else {
        return
    }
    var action = sigaction()
    action.handler = nil
    sigaction(signal, &action, nil)
}

extension sigaction {
    /// The handler (`nil` is `SIG_DFL`), under each C library's name for the union that holds it.
    fileprivate var handler: (@convention(c) (Int32) -> Void)? {
        get {
            #if canImport(Glibc)
            __sigaction_handler.sa_handler
            #elseif canImport(Musl)
            __sa_handler.sa_handler
            #elseif canImport(Android)
            sa_handler
            #endif
        }
        set {
            #if canImport(Glibc)
            __sigaction_handler.sa_handler = newValue
            #elseif canImport(Musl)
            __sa_handler.sa_handler = newValue
            #elseif canImport(Android)
            sa_handler = newValue
            #endif
        }
    }
}
#endif
