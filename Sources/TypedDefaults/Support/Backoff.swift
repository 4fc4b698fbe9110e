import Foundation

/// The pauses of a retry loop: each twice as long as the one before, up to a limit.
///
/// The one way the library waits on a thread of its caller: a file lock another process holds, a file caught
/// in the middle of a rewrite, a `modify` that other writers keep overtaking. ``Coalescer`` takes the pauses
/// between the runs of a job that fails from one too.
///
/// ```swift
/// var backoff = Backoff(first: .microseconds(500), limit: .milliseconds(20))
/// while !tryToLock() { backoff.pause() }
/// ```
struct Backoff: Sendable {
    private let first: Duration
    private let limit: Duration
    private let jittered: Bool
    private var current: Duration

    /// Pauses starting at `first` and doubling up to `limit`; `jittered`, each pause lasts a random part of its
    /// length, so that threads that failed together do not try again together.
    init(first: Duration, limit: Duration, jittered: Bool = false) {
        self.first = first
        self.limit = limit
        self.jittered = jittered
        current = first
    }

    /// The pause due now; the next one is twice as long, up to the limit.
    mutating func next() -> Duration {
        defer { current = min(current * 2, limit) }
        return current
    }

    /// Starts over from the first pause, after a success.
    mutating func reset() {
        current = first
    }

    /// Sleeps the calling thread for the pause due now (a random part of it, when jittered).
    mutating func pause() {
        let pause = next()
        let microseconds = Self.microseconds(in: pause)
        Self.sleep(microseconds: jittered ? Int64.random(in: 0...microseconds) : microseconds)
    }

    /// Sleeps the calling thread for `duration`, for a wait that is worked out rather than doubled.
    static func pause(for duration: Duration) {
        sleep(microseconds: microseconds(in: duration))
    }

    private static func microseconds(in duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return max(seconds * 1_000_000 + attoseconds / 1_000_000_000_000, 0)
    }

    private static func sleep(microseconds: Int64) {
        usleep(useconds_t(clamping: microseconds))
    }
}
