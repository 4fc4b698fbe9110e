import Foundation
import Testing

#if !TYPED_DEFAULTS_FOUNDATION_STORAGE  // needs the Linux file store; see FileStoreOnly.swift

@testable import TypedDefaults

/// A read that finds the copy stale starts a check for another process's write; these tests hold the checks
/// to following the reads, on a timer, rather than each read waking a thread.
@Suite("Checks for other processes' writes follow the reads")
struct FreshnessChecksTests {
    @Test(
        "a steady stream of reads sees another program's write, with checks a timer starts, and no more once reads stop"
    )
    func checksFollowReads() throws {
        let suite = IsolatedSuite()
        let store = try FileStore.suite(suite.name, directory: suite.directory.url)
        _ = try store.apply(DefaultsBatch(writes: ["k": .integer(1)]))
        try store.flush()
        let (checksBefore, startedBefore) = store.state.withLock { ($0.checks, $0.checksStartedByReads) }

        // One second of reads, one every 2 ms; another program replaces the file halfway.
        let start = ContinuousClock.now
        var replacedAt: ContinuousClock.Instant?
        var seenAt: ContinuousClock.Instant?
        while ContinuousClock.now - start < .seconds(1) {
            if replacedAt == nil, ContinuousClock.now - start > .milliseconds(500) {
                let data = try PropertyListSerialization.data(fromPropertyList: ["k": 2], format: .xml, options: 0)
                let temporary = suite.directory.url.appendingPathComponent("replacement.plist")
                try data.write(to: temporary)
                #expect(rename(temporary.path, suite.fileURL.path) == 0)
                replacedAt = .now
            }
            if seenAt == nil, store.value(forKey: "k") == .integer(2) { seenAt = .now }
            Thread.sleep(forTimeInterval: 0.002)
        }
        let seenAfter = try #require(seenAt.flatMap { seen in replacedAt.map { seen - $0 } })
        #expect(seenAfter < .milliseconds(400), "the write was read \(seenAfter) after it")

        let (checks, started) = store.state.withLock {
            ($0.checks - checksBefore, $0.checksStartedByReads - startedBefore)
        }
        // About one check every 50 ms; reads started at most the first (and one after any pause of the timer).
        #expect((5...40).contains(checks), "\(checks) checks in one second of reads")
        #expect(started <= 3, "reads started \(started) of \(checks) checks themselves")

        // Threads reading as fast as they can, the file unchanged: the timer's checks leave no gap in which a
        // read finds the copy stale and starts one itself.
        let startedBeforeBusy = store.state.withLock { $0.checksStartedByReads }
        let busyEnd = ContinuousClock.now + .seconds(1)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            while ContinuousClock.now < busyEnd { _ = store.value(forKey: "k") }
        }
        let startedBusy = store.state.withLock { $0.checksStartedByReads } - startedBeforeBusy
        // Without the timer, reads would start one every 50 ms, about 20; a timer that a loaded machine runs
        // late lets a read start one now and then.
        #expect(startedBusy <= 3, "reads on four threads started \(startedBusy) checks themselves in 1 s")

        // Once reads stop, the timer stops after one more look.
        Thread.sleep(forTimeInterval: 0.3)
        let settled = store.state.withLock { $0.checks }
        Thread.sleep(forTimeInterval: 0.5)
        #expect(store.state.withLock { $0.checks } == settled, "checks went on without reads")
    }
}

#endif
