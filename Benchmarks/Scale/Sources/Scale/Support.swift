#if os(Linux)
import Foundation

/// A failure that ends the run with exit status 1.
///
/// A wrong value read or written, a child that failed, a file that does not hold what was written: a benchmark
/// that silently measures nothing is worse than none.
struct ScaleError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A value shared between threads.
final class Shared<Value>: @unchecked Sendable {  // every access to `value` holds `lock`
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// Runs `body` on a thread of its own; the returned semaphore is signalled when it has returned.
func startThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
    let finished = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        finished.signal()
    }
    thread.start()
    return finished
}

/// Sleeps until `deadline` (returns at once if it has passed).
func sleep(until deadline: ContinuousClock.Instant) {
    let remaining = ContinuousClock.now.duration(to: deadline)
    guard remaining > .zero else { return }
    sleep(for: remaining)
}

/// Sleeps for `duration` with `nanosleep`: Linux wakes the thread some tens of microseconds late (timer slack).
func sleep(for duration: Duration) {
    let (seconds, attoseconds) = duration.components
    var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR {
        request = remaining
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// Times `body`, in seconds.
func time(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    return start.duration(to: .now).seconds
}

/// The median of `values` (the mean of the middle two for an even count).
func median(_ values: [Double]) -> Double {
    precondition(!values.isEmpty, "the median of no values")
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// The value at `fraction` (0...1) of the sorted `values`, by the nearest-rank method.
func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
    precondition(!sorted.isEmpty, "a percentile of no values")
    let rank = Int((fraction * Double(sorted.count)).rounded(.up))
    return sorted[min(max(rank, 1), sorted.count) - 1]
}

/// CPU time (user + system) and peak resident memory of this process so far.
struct ResourceUsage {
    /// User plus system CPU time, in seconds.
    var cpu: Double
    /// The peak resident set size as `ru_maxrss` says, in KiB.
    ///
    /// On Linux a child started with `posix_spawn` (or `vfork`) inherits its parent's peak in this figure, from
    /// the memory it shared with the parent until `exec`: see ``peakResidentKiB``.
    var maxResidentKiB: Int
    /// The peak resident set size of this process's own memory, in KiB: `VmHWM` from `/proc/self/status` on
    /// Linux, `ru_maxrss` elsewhere.
    var peakResidentKiB: Int

    static func current() -> ResourceUsage {
        var usage = rusage()
        #if os(Linux)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        let maxResident = Int(usage.ru_maxrss)
        #else
        getrusage(RUSAGE_SELF, &usage)
        let maxResident = Int(usage.ru_maxrss) / 1024  // bytes on Darwin
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return ResourceUsage(
            cpu: seconds(usage.ru_utime) + seconds(usage.ru_stime),
            maxResidentKiB: maxResident,
            peakResidentKiB: highWaterMark() ?? maxResident
        )
    }

    /// `VmHWM` of `/proc/self/status`, in KiB.
    private static func highWaterMark() -> Int? {
        // portability: nil where there is no /proc, and `current()` takes ru_maxrss instead.
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return nil }
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }
}

/// Writes a line to standard error at once (progress, and the reason for a failure).
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
#endif
