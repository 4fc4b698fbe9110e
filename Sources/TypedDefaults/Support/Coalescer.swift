import Dispatch

/// Runs a job later, once for every burst of requests: the one way the library defers work.
///
/// A request arranges a run within the delay it asks for, unless one is arranged already. A request made while
/// the job runs arranges the next run for after it (within the delay asked for), never one beside it: a job
/// never runs twice at once, and a change made while it runs is never left without a run after it. With a
/// ``Backoff``, a job that throws is reported and runs again after the back-off's next pause, which doubles
/// with each failure in a row and starts over after a success; requests meanwhile wait for that run.
///
/// Every flush, check of the file, backup copy and announcement to the Observation framework is a coalescer's
/// job, and every retry loop pauses with a ``Backoff``.
///
/// The job is handed its owner, which each arranged run holds until it has run (a scheduled flush keeps its
/// store): the owner holds the coalescer, and a job that captured the owner would keep it forever.
///
/// A job on ``Executor/background`` that was running in the parent at a `fork()` runs again from its start in
/// the child (see ``BackgroundWork``), where the coalescer still counts it as running: requests there until then
/// become the request for a run after it, and the run clears the count when it ends, so nothing is lost or
/// wedged. A run the parent had arranged at that moment may then start beside it, so in a forked child a job
/// can run twice at once. Every background job is safe to: a file store's jobs take its file lock, and a
/// store's `flush()` may be called from any thread at any time.
/// A job on ``Executor/dispatch`` does not run in such a child, as no Dispatch work does.
///
/// ```swift
/// let backups = Coalescer<FileStore> { $0.writeBackup() }
/// backups.request(for: store, within: .milliseconds(50))
/// ```
final class Coalescer<Owner: AnyObject & Sendable>: Sendable {
    /// Where the job runs.
    enum Executor: Sendable {
        /// The library's own threads (``BackgroundWork``), which run on in a child forked without `exec`.
        case background
        /// Dispatch's global queue: for a job that runs user code, which must never hold up the library's own
        /// threads (a flush waits behind them).
        case dispatch
    }

    private struct State: Sendable {
        /// A run is arranged and has not started.
        var scheduled = false
        var running = false
        /// The shortest delay asked for while the job ran.
        var requested: Duration?
        var backoff: Backoff?
    }

    private let state: Locked<State>
    private let executor: Executor
    private let job: @Sendable (Owner) throws -> Void
    private let failed: @Sendable (Owner, any Error, Duration) -> Void

    /// Coalesces runs of `job` on `executor`.
    init(on executor: Executor = .background, _ job: @escaping @Sendable (Owner) -> Void) {
        state = Locked(State())
        self.executor = executor
        self.job = job
        failed = { _, _, _ in }
    }

    /// Coalesces runs of `job`, which may fail: a failure is handed to `failed` with the pause before the job
    /// runs again, which `backoff` gives.
    init(
        retrying backoff: Backoff,
        reporting failed: @escaping @Sendable (Owner, _ failure: any Error, _ retryingIn: Duration) -> Void,
        _ job: @escaping @Sendable (Owner) throws -> Void
    ) {
        state = Locked(State(backoff: backoff))
        executor = .background
        self.job = job
        self.failed = failed
    }

    /// Arranges a run of the job for `owner` within `delay`, unless one is arranged already; while the job runs,
    /// arranges the next run for after it.
    ///
    /// When a run is arranged already this costs one lock and two flags: the coalesced write path calls it on
    /// every write.
    @inline(__always)
    func request(for owner: Owner, within delay: Duration = .zero) {
        let arrange = state.withLock { state in
            if state.running {
                state.requested = min(state.requested ?? delay, delay)
                return false
            }
            defer { state.scheduled = true }
            return !state.scheduled
        }
        if arrange { start(owner, after: delay) }
    }

    /// Whether a run is arranged or running.
    var isPending: Bool {
        state.withLock { $0.scheduled || $0.running }
    }

    private func start(_ owner: Owner, after delay: Duration) {
        switch executor {
        case .background:
            BackgroundWork.run(after: delay) { [self] in run(for: owner) }
        case .dispatch where delay == .zero:
            DispatchQueue.global().async { [self] in run(for: owner) }
        case .dispatch:
            let (seconds, attoseconds) = delay.components
            DispatchQueue.global()
                .asyncAfter(deadline: .now() + Double(seconds) + Double(attoseconds) / 1e18) { [self] in
                    run(for: owner)
                }
        }
    }

    private func run(for owner: Owner) {
        // Cleared before the job starts: a request made meanwhile (even by the job) runs it again after.
        state.withLock { state in
            state.scheduled = false
            state.running = true
        }
        let failure: (any Error)?
        do {
            try job(owner)
            failure = nil
        } catch {
            failure = error
        }
        let (next, retry) = state.withLock { state -> (Duration?, Duration?) in
            state.running = false
            defer { state.requested = nil }
            guard failure != nil, let retry = state.backoff?.next() else {
                state.backoff?.reset()
                return (state.requested, nil)
            }
            return (retry, retry)
        }
        if let failure, let retry { failed(owner, failure, retry) }
        if let next { request(for: owner, within: next) }
    }
}
