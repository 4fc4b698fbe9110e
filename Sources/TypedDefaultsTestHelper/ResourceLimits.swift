#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A resource whose limit a command lowers, so that the system refuses what it would otherwise allow.
enum LimitedResource {
    /// The largest file the process may write (`RLIMIT_FSIZE`): a write past it fails as on a full disk.
    case fileSize
    /// How many descriptors the process may hold open (`RLIMIT_NOFILE`).
    case openFiles

    // Glibc imports `RLIMIT_*` as an enumeration whose raw values `setrlimit` takes as its own resource type;
    // Darwin (and Musl) declare them as plain `Int32` constants.
    #if canImport(Glibc)
    fileprivate var number: __rlimit_resource_t {
        switch self {
        case .fileSize: __rlimit_resource_t(RLIMIT_FSIZE.rawValue)
        case .openFiles: __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        }
    }
    #else
    fileprivate var number: Int32 {
        switch self {
        case .fileSize: RLIMIT_FSIZE
        case .openFiles: RLIMIT_NOFILE
        }
    }
    #endif
}

/// Sets both the soft and the hard limit of `resource` to `limit`.
func setResourceLimit(_ resource: LimitedResource, _ limit: UInt64) {
    var limits = rlimit(rlim_cur: rlim_t(limit), rlim_max: rlim_t(limit))
    setrlimit(resource.number, &limits)
}

/// Lowers the soft limit of `resource` to `limit` unless it is lower already, keeping the hard limit.
func lowerSoftResourceLimit(_ resource: LimitedResource, to limit: UInt64) {
    var limits = rlimit()
    getrlimit(resource.number, &limits)
    limits.rlim_cur = min(limits.rlim_cur, rlim_t(limit))
    setrlimit(resource.number, &limits)
}
