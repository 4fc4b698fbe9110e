#if canImport(Glibc)
import Glibc

/// Every ``ShortLock`` in the process, so that `fork()` leaves none of them held in the child.
///
/// `fork()` copies only the calling thread. A lock another thread held at that moment stays held in the child
/// for good, by a thread that does not exist there, and whatever it guarded may be half changed. So before a
/// fork (`pthread_atfork`'s prepare handler) the forking thread takes every lock of the library, and releases
/// them on both sides after: every state they guard is whole in the child, and nothing there waits on them.
/// The locks are taken with `trylock`, and all let go again if one is busy, so the prepare handler never waits
/// for a lock while holding another: it cannot deadlock with a thread that takes two locks in another order.
/// A fork therefore waits until no thread is inside the library's locks at the same moment (a flush holds its
/// store's file lock for the length of a write, at most the 5 s wait for another process's file lock).
///
/// The list is a doubly linked list of nodes the locks own, under a mutex of its own that is never listed.
enum LockRegistry {
    /// A listed lock: its mutex, and its neighbours in the list.
    struct Node {
        var mutex = pthread_mutex_t()
        var previous: UnsafeMutablePointer<Node>?
        var next: UnsafeMutablePointer<Node>?
    }

    /// The list's head (a node with no lock of its own) and the mutex that guards the list.
    private struct List: @unchecked Sendable {
        // Both are only used under `guardMutex`, through pointers made once.
        let head: UnsafeMutablePointer<Node>
        let guardMutex: UnsafeMutablePointer<pthread_mutex_t>
    }

    /// Made before the first lock is.
    private static let list: List = {
        let head = UnsafeMutablePointer<Node>.allocate(capacity: 1)
        head.initialize(to: Node())
        let guardMutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(guardMutex, nil)
        return List(head: head, guardMutex: guardMutex)
    }()

    /// Registers the atfork handlers once the list exists, so that a fork never finds it half made.
    private static let forkHandlers: Void = {
        _ = list
        pthread_atfork(prepareForFork, resumeInParent, resumeInChild)
    }()

    /// A new lock's node, listed, with its mutex initialized.
    static func register() -> UnsafeMutablePointer<Node> {
        let node = UnsafeMutablePointer<Node>.allocate(capacity: 1)
        node.initialize(to: Node())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        pthread_mutex_init(mutex(of: node), &attributes)
        pthread_mutexattr_destroy(&attributes)
        let list = list
        forkHandlers
        pthread_mutex_lock(list.guardMutex)
        node.pointee.next = list.head.pointee.next
        node.pointee.previous = list.head
        list.head.pointee.next?.pointee.previous = node
        list.head.pointee.next = node
        pthread_mutex_unlock(list.guardMutex)
        return node
    }

    /// Takes `node` off the list and frees it; its lock is no longer used.
    static func unregister(_ node: UnsafeMutablePointer<Node>) {
        let list = list
        pthread_mutex_lock(list.guardMutex)
        node.pointee.previous?.pointee.next = node.pointee.next
        node.pointee.next?.pointee.previous = node.pointee.previous
        pthread_mutex_unlock(list.guardMutex)
        pthread_mutex_destroy(mutex(of: node))
        node.deinitialize(count: 1)
        node.deallocate()
    }

    /// The mutex inside `node`.
    static func mutex(of node: UnsafeMutablePointer<Node>) -> UnsafeMutablePointer<pthread_mutex_t> {
        UnsafeMutableRawPointer(node).advanced(by: MemoryLayout<Node>.offset(of: \.mutex)!)
            .assumingMemoryBound(to: pthread_mutex_t.self)
    }

    /// The kernel's ID of the calling thread, as Glibc records it in a mutex it holds (`gettid()` is not
    /// imported into Swift); a mutex on the stack is used, so no other thread is involved.
    private static func currentThreadID() -> Int32 {
        var probe = pthread_mutex_t()
        pthread_mutex_init(&probe, nil)
        pthread_mutex_lock(&probe)
        let thread = probe.__data.__owner
        pthread_mutex_unlock(&probe)
        pthread_mutex_destroy(&probe)
        return thread
    }

    /// Before a fork: takes the list's mutex and every listed lock.
    ///
    /// A busy lock is waited for a millisecond at most; past that, every lock taken is let go and the whole
    /// round starts again, so that a thread holding the busy lock and waiting for one taken here goes on.
    fileprivate static func takeAll() {
        let list = list
        while true {
            pthread_mutex_lock(list.guardMutex)
            var node = list.head.pointee.next
            var busy = false
            while let current = node {
                if pthread_mutex_trylock(mutex(of: current)) != 0, !wait(for: mutex(of: current)) {
                    busy = true
                    releaseAll(before: current)
                    break
                }
                node = current.pointee.next
            }
            guard busy else { return }
            pthread_mutex_unlock(list.guardMutex)
            sched_yield()
        }
    }

    /// Takes `mutex`, waiting a millisecond at most; returns whether it was taken.
    private static func wait(for mutex: UnsafeMutablePointer<pthread_mutex_t>) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        deadline.tv_nsec += 1_000_000
        if deadline.tv_nsec >= 1_000_000_000 {
            deadline.tv_sec += 1
            deadline.tv_nsec -= 1_000_000_000
        }
        return pthread_mutex_timedlock(mutex, &deadline) == 0
    }

    /// Releases every listed lock before `end` (all of them with `nil`), in the order listed.
    fileprivate static func releaseAll(before end: UnsafeMutablePointer<Node>? = nil) {
        var node = list.head.pointee.next
        while let current = node, current != end {
            pthread_mutex_unlock(mutex(of: current))
            node = current.pointee.next
        }
    }

    /// After a fork, in the parent or the child: releases what ``takeAll()`` took.
    ///
    /// In the child the thread that took them is the one thread left; Glibc's normal and adaptive mutexes are
    /// released by any thread, with no record of the owner to check.
    fileprivate static func releaseAllAfterFork() {
        releaseAll()
        pthread_mutex_unlock(list.guardMutex)
    }
}

private func prepareForFork() { LockRegistry.takeAll() }
private func resumeInParent() { LockRegistry.releaseAllAfterFork() }
private func resumeInChild() { LockRegistry.releaseAllAfterFork() }
#endif
