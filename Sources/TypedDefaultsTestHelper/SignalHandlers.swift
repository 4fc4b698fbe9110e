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
    #if canImport(Darwin)
    return unsafeBitCast(current.__sigaction_u.__sa_handler, to: Int.self)
    #elseif canImport(Glibc)
    return unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self)
    #elseif canImport(Musl)
    return unsafeBitCast(current.__sa_handler.sa_handler, to: Int.self)
    #endif
}
