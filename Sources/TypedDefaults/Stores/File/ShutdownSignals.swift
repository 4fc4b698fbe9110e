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
/// never overridden. The handler writes the signal's number to a pipe, and a thread of the library's reads it,
/// flushes for at most ``deadline`` (a flush can wait for another process's file lock), then raises the
/// signal again with its default action, so the process ends exactly as it would have, by that signal.
///
/// Meanwhile the thread the signal interrupted waits inside the handler, so no code of the program runs after
/// the signal arrived: a `sleep`, `read` or `poll` it interrupted never returns early into the program, as it
/// would not have without the library. The one exception is a thread interrupted while it holds one of the
/// library's locks, which the flush needs: it returns to finish what it was doing (nanoseconds inside the
/// library), and the process ends when the flush is done.
///
/// A child forked without `exec` inherits the handler, but not the thread: until the child next uses the
/// library the handler ends it by the default action at once, and from then on it has a pipe and a thread of
/// its own (``resumeAfterFork()``).
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
        guard !signals.isEmpty, startListening() else { return }
        pthread_atfork(nil, nil, stopListeningInChild)
        BackgroundWork.onResumeAfterFork { _ = startListening() }
        for signal in signals { catchSignal(signal) }
    }

    /// Makes this process's pipe and starts the thread that reads it; `false` if either cannot be had.
    private static func startListening() -> Bool {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return false }
        // Not inherited by programs this one runs; and the handler never blocks on a full pipe.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        let readEnd = ends[0]
        guard BackgroundWork.startThread({ waitForSignal(on: readEnd) }) else {
            close(ends[0])
            close(ends[1])
            return false
        }
        // Published last: the handler uses the pipe only once its reader runs.
        shutdownPipe.pointee = ShutdownPipe(readEnd: ends[0], writeEnd: ends[1], owner: getpid())
        return true
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

    private static func waitForSignal(on readEnd: Int32) {
        var byte: UInt8 = 0
        while true {
            let count = read(readEnd, &byte, 1)
            if count == 1 { break }
            if count < 0, errno == EINTR { continue }
            return
        }
        let signal = Int32(byte)
        armLastResort(signal)
        flush(before: signal)
        end(by: signal)
    }

    /// Has the kernel send `signal` again once the flush and its report have had their time, before this
    /// thread allocates anything: the signal's action is the default by then, so the process ends by it even if
    /// this thread never gets that far (the thread the signal interrupted, waiting in the handler, may hold a
    /// lock of the C library or of Swift's runtime that the flush needs).
    private static func armLastResort(_ signal: Int32) {
        #if canImport(Glibc)
        var event = sigevent()
        event.sigev_notify = Int32(SIGEV_SIGNAL)
        event.sigev_signo = signal
        var timer: timer_t?
        guard timer_create(CLOCK_MONOTONIC, &event, &timer) == 0 else { return }
        var due = itimerspec(
            it_interval: timespec(),
            it_value: timespec(tv_sec: Int(deadline) + 2, tv_nsec: 0)
        )
        timer_settime(timer, 0, &due, nil)
        #endif
    }

    /// Flushes every suite, waiting at most ``deadline``.
    private static func flush(before signal: Int32) {
        let current = Locked<String?>(nil)
        let finished = runBounded(seconds: deadline) {
            FileStore.flushAllBeforeExit(starting: { suite in current.withLock { $0 = suite } })
        }
        guard !finished else { return }
        // A diagnostics handler is the program's code: it must not hold up the end either, nor must making the
        // report.
        _ = runBounded(seconds: 1) {
            let diagnostic = DefaultsDiagnostic(
                kind: .writeFailed,
                suite: current.withLock { $0 } ?? "",
                key: nil,
                message: "flushing before \(name(of: signal)) ends the process did not finish within "
                    + "\(Int(deadline)) s (another process may hold the suite's lock file); writes not flushed yet "
                    + "are lost"
            )
            DefaultsDiagnostics.report(diagnostic, oncePerProcess: false)
        }
    }

    /// Runs `body` on a thread of its own and waits at most `seconds` for it; returns whether it finished.
    ///
    /// The thread says it finished by writing a byte to a pipe: a program another thread starts meanwhile may
    /// inherit the pipe, so its closing is no sign. With no descriptors or threads to spare, `body` runs here,
    /// unbounded: a flush is worth more than the bound.
    private static func runBounded(seconds: Double, _ body: @escaping @Sendable () -> Void) -> Bool {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            body()
            return true
        }
        // From before the thread starts: what `body` waits for inside (another process's lock, at most as
        // long) never outlasts the bound.
        let deadline = ContinuousClock.now + .seconds(seconds)
        let (readEnd, writeEnd) = (ends[0], ends[1])
        for end in [readEnd, writeEnd] { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let started = BackgroundWork.startThread {
            body()
            var done: UInt8 = 1
            _ = write(writeEnd, &done, 1)
            close(writeEnd)
        }
        guard started else {
            close(readEnd)
            close(writeEnd)
            body()
            return true
        }
        defer { close(readEnd) }
        var waiting = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return false }
            // Rounded down: the last part of a millisecond is polled without waiting.
            let ready = poll(&waiting, 1, Int32(left / .milliseconds(1)))
            if ready > 0 {
                var done: UInt8 = 0
                return read(readEnd, &done, 1) == 1
            }
            if ready < 0, errno != EINTR { return false }
        }
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
/// Memory made once, before any handler is installed, so that the handler reads it without a lock (reading an
/// initialized global is one atomic load); the pipe is set before the handler is, and again in a forked child
/// before the child's handler can find it.
// Written only before the handler can find it (at install, and in a child before the child's reader starts);
// the handler only reads it, and a torn read finds no owner or no pipe, and ends the process by default.
nonisolated(unsafe) private let shutdownPipe: UnsafeMutablePointer<ShutdownPipe> = {
    let storage = UnsafeMutablePointer<ShutdownPipe>.allocate(capacity: 1)
    storage.initialize(to: ShutdownPipe(readEnd: -1, writeEnd: -1, owner: 0))
    return storage
}()

private struct ShutdownPipe {
    var readEnd: Int32
    var writeEnd: Int32
    /// The process whose thread reads the pipe; 0 for none.
    var owner: pid_t
}

/// Whether a store of the program's own is listed for the flush (``OpenStores``): set once, never cleared, and
/// read by the handler without a lock.
nonisolated(unsafe) private let storeOfTheProgram: UnsafeMutablePointer<Bool> = {
    let storage = UnsafeMutablePointer<Bool>.allocate(capacity: 1)
    storage.initialize(to: false)
    return storage
}()

extension ShutdownSignals {
    /// Says that the flush covers a store of the program's own: from then on the interrupted thread is not held
    /// in the handler, since it may hold that store's own lock, which the flush would wait for.
    static func storeOfTheProgramListed() {
        storeOfTheProgram.pointee = true
    }
}

/// Forgets the parent's pipe in a child forked without exec.
///
/// A byte written to it would end the parent, and no thread reads it here. Only async-signal-safe calls, as
/// after any fork.
private func stopListeningInChild() {
    let inherited = shutdownPipe.pointee
    shutdownPipe.pointee = ShutdownPipe(readEnd: -1, writeEnd: -1, owner: 0)
    if inherited.readEnd >= 0 { close(inherited.readEnd) }
    if inherited.writeEnd >= 0 { close(inherited.writeEnd) }
}

/// The handler: in signal context, so only async-signal-safe calls (`getpid`, `write`, `raise`, `sigaction`,
/// `sigsuspend`, uncontended mutex calls), no allocation, and `errno` left as it was.
private func shutdownSignalHandler(_ signal: Int32) {
    let savedErrno = errno
    defer { errno = savedErrno }
    var byte = UInt8(truncatingIfNeeded: signal)
    let current = shutdownPipe.pointee
    // No thread of this process reads a pipe (a child forked without exec that has not used the library since),
    // or the pipe cannot be written: no flush. End as by default (SA_RESETHAND restored it).
    guard current.owner == getpid(), write(current.writeEnd, &byte, 1) == 1 else {
        raise(signal)
        return
    }
    // While the flush runs, any second one of these signals ends the process at once.
    restoreDefaultIfCaught(SIGTERM)
    restoreDefaultIfCaught(SIGINT)
    restoreDefaultIfCaught(SIGHUP)
    // The program's code must not run on after the signal: this thread waits here until the flush ends the
    // process, unless it may hold a lock the flush needs (one of the library's, or a store's of the program).
    guard !storeOfTheProgram.pointee, !LockRegistry.currentThreadMayHoldALock() else { return }
    var waiting = sigset_t()
    sigfillset(&waiting)
    sigdelset(&waiting, SIGTERM)
    sigdelset(&waiting, SIGINT)
    sigdelset(&waiting, SIGHUP)
    while true { sigsuspend(&waiting) }
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
