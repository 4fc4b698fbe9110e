import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
import Synchronization

/// Runs the library's work later, off the caller's thread: coalesced flushes, checks for other processes'
/// writes, backup copies.
///
/// The library arranges that work through a ``Coalescer``, which runs it here.
///
/// A thread of the library's own keeps the jobs in deadline order and hands each, when it is due, to one of at
/// most ``maximumWorkers`` threads that run jobs (a flush can wait seconds for another process's file lock, and
/// must not hold up the others; thousands of suites flushing at once must not take a descriptor each).
/// Not Dispatch: once a process has used libdispatch's threads, a child it forks without `exec` runs none of
/// the work queued there, silently, and the child's writes would never reach the disk. Here the jobs are plain
/// memory, carried over to the child whole (the list's lock is a ``ShortLock``, so it is free and the list
/// intact there); the first use of the library in the child starts a timer thread again, and the jobs run.
/// A job that was running in the parent at the fork runs again from its start in the child, where its thread
/// is not there to finish it: so every job must be safe to run again (each is a check of what is left to do:
/// a flush of what is pending, a reading of the file if it changed, a copy of the last version written).
///
/// Every thread started here blocks every signal but those a fault of its own raises: a signal meant for the
/// program is never handled on a thread of the library's, and never interrupts its work.
///
/// ```swift
/// BackgroundWork.run(after: .milliseconds(50)) { coalescer.run(for: owner) }
/// ```
enum BackgroundWork {
    /// Runs `work` on a thread of the library's once `delay` has passed.
    static func run(after delay: Duration = .zero, _ work: @escaping @Sendable () -> Void) {
        timeline.add(Job(deadline: monotonicNow() &+ delay.nanoseconds, work: work))
    }

    /// In a child forked since the last call, starts the timer again, so that the jobs the parent left run
    /// there; otherwise costs two loads and a comparison.
    static func resumeAfterFork() {
        _ = willRun()
    }

    /// Whether work arranged now will run.
    ///
    /// `false` once ``stop()`` was called (the process is exiting), so that the caller does now what it would
    /// have arranged for later. Resumes after a fork first, like ``resumeAfterFork()``, at the same cost.
    static func willRun() -> Bool {
        let state = timeline.state.load(ordering: .acquiring)
        if state == forkCount.pointee &+ 1 { return true }
        if state & Timeline.stopped != 0 { return false }
        timeline.add(nil)
        return true
    }

    /// Stops running work: called when the process starts to exit, from where on ``willRun()`` is `false` and
    /// no job starts (the process could end in the middle of one).
    static func stop() {
        timeline.state.bitwiseOr(Timeline.stopped, ordering: .sequentiallyConsistent)
    }

    /// Whether ``stop()`` was called.
    static var isStopped: Bool {
        timeline.state.load(ordering: .acquiring) & Timeline.stopped != 0
    }

    /// Starts `body` on a new detached thread that blocks every signal; `false` if no thread could be made.
    @discardableResult
    static func startThread(_ body: @escaping @Sendable () -> Void) -> Bool {
        final class Box: Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        var all = sigset_t()
        var saved = sigset_t()
        sigfillset(&all)
        // A fault in the thread itself must still reach the program's crash handler (and Swift's backtracer):
        // blocked, the kernel would end the process without running either.
        for fault in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS, SIGABRT] { sigdelset(&all, fault) }
        // The new thread inherits the mask in force when it is made.
        pthread_sigmask(SIG_BLOCK, &all, &saved)
        defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread,
            &attributes,
            { raw in
                Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
                return nil
            },
            box
        )
        guard result == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            return false
        }
        return true
    }

    /// How many jobs run at once, at most.
    static let maximumWorkers = 8

    fileprivate struct Job {
        var deadline: UInt64
        var work: @Sendable () -> Void
        var id: UInt64 = 0
        /// The worker running the job, once one is.
        var thread: pthread_t?
    }

    private static let timeline = Timeline()

    /// Nanoseconds on the monotonic clock.
    static func monotonicNow() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    /// Counts the forks this process came from, raised in each child before `fork()` returns there.
    ///
    /// Memory of its own, made once, so that the atfork handler only stores to it.
    // Written only in a child's atfork handler, while the child has one thread.
    nonisolated(unsafe) static let forkCount: UnsafeMutablePointer<UInt64> = {
        let count = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)
        count.initialize(to: 0)
        return count
    }()

    /// The thread that called `fork()`, as a child knows it (the one thread it has at first).
    // Written only in a child's atfork handler, while the child has one thread.
    nonisolated(unsafe) static let forkingThread: UnsafeMutablePointer<pthread_t> = {
        let thread = UnsafeMutablePointer<pthread_t>.allocate(capacity: 1)
        thread.initialize(to: pthread_self())
        return thread
    }()

    /// How many forks this process came from: a value that differs from one read before means a child forked
    /// since, without `exec` (one load; `getpid()` is a system call).
    static var forks: UInt64 {
        _ = countingForks
        return forkCount.pointee
    }

    /// Registers the atfork handler once both globals it writes exist, so that it never meets one half made.
    fileprivate static let countingForks: Void = {
        _ = forkCount
        _ = forkingThread
        pthread_atfork(nil, nil, countFork)
    }()
}

private func countFork() {
    BackgroundWork.forkCount.pointee &+= 1
    BackgroundWork.forkingThread.pointee = pthread_self()
}

/// The jobs waiting for their deadline, the jobs due, the jobs running, and the threads that wait for them.
private final class Timeline: @unchecked Sendable {
    // Every property but `lock`, `condition` and `resumed` is only used under `lock`; `condition` is paired with
    // it.
    private let lock = ShortLock()
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    /// Ordered by deadline, earliest last.
    private var jobs: [BackgroundWork.Job] = []
    /// The jobs due, first come first.
    private var ready: [BackgroundWork.Job] = []
    /// The threads running jobs.
    private var workers = 0
    /// The jobs started and not finished, by ID: a child forked meanwhile runs them again.
    private var running: [UInt64: BackgroundWork.Job] = [:]
    private var lastID: UInt64 = 0
    /// The fork count of the process whose timer thread runs: the parent's thread is no timer in a child.
    private var timerInFork: UInt64?
    /// The fork count this process last resumed at.
    private var resumedInFork: UInt64
    /// The fork count, plus one, of the process whose timer runs and that has resumed, with ``stopped`` set
    /// once the process exits: read without the lock.
    let state = Atomic<UInt64>(0)
    static let stopped: UInt64 = 1 << 63

    init() {
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        BackgroundWork.countingForks
        resumedInFork = BackgroundWork.forkCount.pointee
        Self.initialize(condition)
    }

    private static func initialize(_ condition: UnsafeMutablePointer<pthread_cond_t>) {
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    /// Adds `job` (if any), makes sure a timer thread of this process waits for the earliest job, and in a
    /// child forked since the last call, resumes the parent's work.
    func add(_ job: BackgroundWork.Job?) {
        let forks = BackgroundWork.forkCount.pointee
        lock.lock()
        if resumedInFork != forks {
            // A child: the parent's threads are gone. The condition variable may still count the parent's
            // waiting timer, and the jobs the parent was running are run again.
            resumedInFork = forks
            Self.initialize(condition)
            // The thread that forked goes on in the child: a job it was running is not run a second time, and
            // it is still a worker if it was one.
            let forking = BackgroundWork.forkingThread.pointee
            let carriedOn = running.values.filter { $0.thread.map { pthread_equal($0, forking) != 0 } ?? false }
            ready.insert(contentsOf: running.values.filter { job in !carriedOn.contains { $0.id == job.id } }, at: 0)
            running = Dictionary(uniqueKeysWithValues: carriedOn.map { ($0.id, $0) })
            workers = carriedOn.count
        }
        var earliest = false
        if let job {
            insert(job)
            earliest = jobs.last?.deadline == job.deadline
        }
        let start = timerInFork != forks
        if start {
            timerInFork = forks
        } else if earliest {
            pthread_cond_signal(condition)
        }
        lock.unlock()
        if start {
            if BackgroundWork.startThread({ [self] in waitForJobs() }) {
                var current = state.load(ordering: .relaxed)
                while true {
                    let (exchanged, found) = state.compareExchange(
                        expected: current,
                        desired: current & Self.stopped | forks &+ 1,
                        ordering: .acquiringAndReleasing
                    )
                    if exchanged { break }
                    current = found
                }
            } else {
                // No thread can be made now (a process or memory limit): the next call tries again.
                lock.lock()
                timerInFork = nil
                lock.unlock()
            }
        }
    }

    private func insert(_ job: BackgroundWork.Job) {
        let index = jobs.firstIndex { $0.deadline <= job.deadline } ?? jobs.endIndex
        jobs.insert(job, at: index)
    }

    private func waitForJobs() {
        lock.lock()
        while true {
            let now = BackgroundWork.monotonicNow()
            while let next = jobs.last, next.deadline <= now {
                ready.append(jobs.removeLast())
            }
            while !ready.isEmpty, workers < BackgroundWork.maximumWorkers {
                workers += 1
                lock.unlock()
                let started = BackgroundWork.startThread { [self] in runReadyJobs() }
                lock.lock()
                guard !started else { continue }
                workers -= 1
                // No thread can be made now: the job runs here, and the timer goes on after it.
                guard workers == 0 else { break }
                workers += 1
                lock.unlock()
                runReadyJobs()
                lock.lock()
            }
            guard let next = jobs.last else {
                pthread_cond_wait(condition, lock.mutex)
                continue
            }
            var until = timespec(
                tv_sec: .init(next.deadline / 1_000_000_000),
                tv_nsec: .init(next.deadline % 1_000_000_000)
            )
            pthread_cond_timedwait(condition, lock.mutex, &until)
        }
    }

    /// Runs due jobs until none is left, then ends its turn as a worker.
    private func runReadyJobs() {
        lock.lock()
        while !ready.isEmpty, state.load(ordering: .acquiring) & Self.stopped == 0 {
            var job = ready.removeFirst()
            lastID &+= 1
            job.id = lastID
            job.thread = pthread_self()
            running[job.id] = job
            lock.unlock()
            job.work()
            lock.lock()
            running[job.id] = nil
        }
        workers -= 1
        lock.unlock()
    }
}

extension Duration {
    /// Whole nanoseconds, at least zero.
    fileprivate var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) &* 1_000_000_000 &+ UInt64(attoseconds / 1_000_000_000)
    }
}
#else
/// Runs the library's work later, off the caller's thread (Dispatch's global queue here).
enum BackgroundWork {
    static func run(after delay: Duration = .zero, _ work: @escaping @Sendable () -> Void) {
        let (seconds, attoseconds) = delay.components
        DispatchQueue.global()
            .asyncAfter(deadline: .now() + Double(seconds) + Double(attoseconds) / 1e18, execute: work)
    }

    static func resumeAfterFork() {}

    static var forks: UInt64 { UInt64(UInt32(bitPattern: getpid())) }

    static func willRun() -> Bool { !stopped.withLock { $0 } }

    static func stop() { stopped.withLock { $0 = true } }

    static var isStopped: Bool { stopped.withLock { $0 } }

    private static let stopped = Locked(false)

    /// Starts `body` on a new thread; always `true`.
    @discardableResult
    static func startThread(_ body: @escaping @Sendable () -> Void) -> Bool {
        Thread.detachNewThread(body)
        return true
    }
}
#endif
