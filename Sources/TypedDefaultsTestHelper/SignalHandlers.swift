#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The address of the handler `signal` has now (0 for `SIG_DFL`, 1 for `SIG_IGN`): to tell whether some code
/// replaced it.
func signalHandlerAddress(_ signal: Int32) -> Int {
    var current = sigaction()
    sigaction(signal, nil, &current)
    // The handler sits in a union that each C library names its own way.
    #if canImport(Glibc)
    return unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self)
    #elseif canImport(Musl)
    return unsafeBitCast(current.__sa_handler.sa_handler, to: Int.self)
    #else
    return unsafeBitCast(current.__sigaction_u.__sa_handler, to: Int.self)
    #endif
}

/// Gives SIGTERM, SIGINT and SIGHUP their default action, unblocked, as a program started by a shell or systemd
/// has them (Foundation's Process hands on the launching thread's blocked signals); before the first suite is
/// opened, which is when the library looks at them.
func resetTerminationSignals() {
    var terminating = sigset_t()
    sigemptyset(&terminating)
    for number in [SIGTERM, SIGINT, SIGHUP] {
        signal(number, SIG_DFL)
        sigaddset(&terminating, number)
    }
    pthread_sigmask(SIG_UNBLOCK, &terminating, nil)
}
