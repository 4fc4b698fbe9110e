import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Key {
    fileprivate static var level: Key<Int> { .init("level", default: 0) }
    fileprivate static var label: Key<String> { .init("label", default: "") }
}

/// A value whose encoding always fails, so a write of it is refused.
private struct Unencodable: Codable, DefaultsSerializable {
    func encode(to encoder: any Encoder) throws { throw CancellationError() }
}

/// A change and the thread it was delivered on.
private struct Delivery: Sendable {
    let change: DefaultsChange<Int>
    let thread: UInt
}

/// An identity of the calling thread.
private func currentThread() -> UInt {
    UInt(bitPattern: Int(bitPattern: Unmanaged.passUnretained(Thread.current).toOpaque()))
}

@Suite("Synchronous observation")
struct SynchronousObservationTests {
    @Test("every kind of write calls the handler on the writing thread before it returns")
    func everyWriteBeforeItReturns() throws {
        let suite = IsolatedSuite(writePolicy: .coalesced)
        let defaults = suite.adapter
        let other = try suite.secondAdapter(keyStore: DefaultsKeys(), writePolicy: .coalesced)
        let deliveries = Recorder<Delivery>()
        let token = defaults.observe(.level, options: [.synchronous, .old, .new]) { change in
            deliveries.append(Delivery(change: change, thread: currentThread()))
        }
        let here = currentThread()
        var expected: [Int] = []
        func check(_ value: Int, _ write: () throws -> Void) throws {
            try write()
            expected.append(value)
            #expect(deliveries.all.map(\.change.newValue) == expected)
        }
        try check(1) { defaults[.level] = 1 }
        try check(2) { try defaults.set(2, for: .level) }
        try check(3) { other[.level] = 3 }  // another adapter on the same suite
        try check(4) { try defaults.modify(.level) { $0 += 1 } }
        try check(0) { defaults.reset(.level) }
        try check(7) { try defaults.modifyStoredValues { $0["level"] = .integer(7) } }
        try check(0) { defaults.removeAll() }
        let wrapper = Default(key: Key<Int>.level, adapter: defaults)
        try check(9) { wrapper.wrappedValue = 9 }
        #expect(deliveries.all.allSatisfy { $0.thread == here && !$0.change.isInitial })
        #expect(deliveries.all.map(\.change.oldValue) == [0, 1, 2, 3, 4, 0, 7, 0])
        // An equal value is no change, and a refused write calls nothing.
        defaults[.level] = 9
        #expect(throws: DefaultsError.self) {
            try defaults.set(Unencodable(), for: Key("level", default: Unencodable()))
        }
        #expect(deliveries.count == 8)
        token.invalidate()
        defaults[.level] = 10
        #expect(deliveries.count == 8)
    }

    @Test("with .initial the current value comes before observe returns, marked initial")
    func initialBeforeReturn() {
        let suite = IsolatedSuite()
        suite.adapter[.level] = 5
        let deliveries = Recorder<DefaultsChange<Int>>()
        let token = suite.adapter.observe(.level, options: [.initial, .synchronous]) { deliveries.append($0) }
        #expect(deliveries.all.map(\.newValue) == [5])
        #expect(deliveries.all.map(\.isInitial) == [true])
        suite.adapter[.level] = 6
        #expect(deliveries.all.map(\.isInitial) == [true, false])
        // Without .synchronous, the initial value comes on the queue, marked the same way.
        let queued = Recorder<DefaultsChange<Int>>()
        let second = suite.adapter.observe(.level, options: [.initial]) { queued.append($0) }
        #expect(eventually { queued.count == 1 })
        #expect(queued.all.first?.isInitial == true && queued.all.first?.newValue == 6)
        token.invalidate()
        second.invalidate()
    }

    @Test("another process's change still arrives, on the observation's queue", .needsFileStore)
    func otherProcess() throws {
        let suite = IsolatedSuite()
        let deliveries = Recorder<DefaultsChange<String>>()
        let token = suite.adapter.observe(.label, options: [.synchronous]) { deliveries.append($0) }
        let run = try Helper.run(["exit-call", suite.name, "label", "there"], configDirectory: suite.directory.url)
        #expect(run.status == 0)
        #expect(eventually { deliveries.count == 1 })
        #expect(deliveries.all.first?.newValue == "there")
        token.invalidate()
    }

    @Test("a handler that normalizes its key settles before the write returns")
    func normalizingHandler() {
        let suite = IsolatedSuite(writePolicy: .coalesced)
        let defaults = suite.adapter
        let seen = Recorder<Int>()
        let token = defaults.observe(.level, options: [.synchronous]) { change in
            seen.append(change.newValue)
            if change.newValue > 10 { defaults[.level] = 10 }
        }
        defaults[.level] = 50
        #expect(defaults[.level] == 10)
        #expect(seen.all == [50, 10])
        token.invalidate()
    }

    @Test("a handler that always changes its key moves to its queue after 16 levels, and stops when invalidated")
    func endlessHandler() {
        let suite = IsolatedSuite(writePolicy: .coalesced)
        let defaults = suite.adapter
        let calls = Recorder<Int>()
        let token = defaults.observe(.level, options: [.synchronous]) { change in
            calls.append(change.newValue)
            defaults[.level] = change.newValue + 1
        }
        defaults[.level] = 1
        // The nested calls ran before the write returned; the rest keep going on the queue, not the stack.
        #expect(calls.count >= SynchronousDelivery.maximumNesting)
        #expect(eventually { calls.count > 100 })
        token.invalidate()
        let stopped = calls.count
        #expect(eventually { defaults[.level] <= stopped + 2 })
        Thread.sleep(forTimeInterval: 0.1)
        #expect(calls.count <= stopped + 1)
    }

    @Test("handlers of two threads' writes run on each writer's thread")
    func concurrentWriters() {
        let suite = IsolatedSuite(writePolicy: .coalesced)
        let defaults = suite.adapter
        let deliveries = Recorder<Delivery>()
        let token = defaults.observe(.level, options: [.synchronous]) { change in
            deliveries.append(Delivery(change: change, thread: currentThread()))
        }
        let threads = Recorder<UInt>()
        DispatchQueue.concurrentPerform(iterations: 4) { index in
            threads.append(currentThread())
            for step in 1...50 { defaults[.level] = index * 1000 + step }
        }
        let writers = Set(threads.all)
        #expect(deliveries.count == 200)
        #expect(deliveries.all.allSatisfy { writers.contains($0.thread) })
        token.invalidate()
    }

    @Test("several keys of different types: observe(keys:) and updates, with and without the initial element")
    func severalKeys() async {
        let suite = IsolatedSuite()
        let defaults = suite.adapter
        let batches = Recorder<Int>()
        let token = defaults.observe(keys: .level, .label, options: [.synchronous]) { batches.append(0) }
        defaults[.level] = 1
        defaults[.label] = "a"
        defaults[Key<Int>("unrelated", default: 0)] = 1
        #expect(batches.count == 2)
        token.invalidate()

        var withInitial = defaults.updates(.level, .label).makeAsyncIterator()
        let first = await withInitial.next()
        #expect(first?.0 == 1 && first?.1 == "a")  // the current values, as one tuple
        var changesOnly = defaults.updates(.level, .label, initial: false).makeAsyncIterator()
        var sameTypeBatches = defaults.updates([Key<Int>.level], initial: false).makeAsyncIterator()
        var values = defaults.updates(.level, initial: false).makeAsyncIterator()
        // The streams are registered once they are first iterated: give them a moment.
        try? await Task.sleep(for: .milliseconds(100))
        defaults.reset(.label, .level)  // one write, one batch
        let afterReset = await withInitial.next()
        #expect(afterReset?.0 == 0 && afterReset?.1 == "")
        let changed = await changesOnly.next()
        #expect(changed?.0 == 0 && changed?.1 == "")
        #expect(await sameTypeBatches.next() != nil)
        #expect(await values.next() == 0)
    }

    @Test("removeLifetimeTie: the observation ends with its token again, not with the object")
    func lifetimeTie() {
        let suite = IsolatedSuite()
        let calls = Recorder<Int>()
        var owner: NSObject? = NSObject()
        var token: DefaultsObservation? = suite.adapter.observe(.level, options: [.synchronous]) {
            calls.append($0.newValue)
        }
        token?.tieToLifetime(of: owner!)
        token?.removeLifetimeTie()
        owner = nil
        suite.adapter[.level] = 1
        #expect(calls.all == [1])  // the object is gone, the token still holds the observation
        token = nil
        suite.adapter[.level] = 2
        #expect(calls.all == [1])  // released token: ended, though it was once tied
        _ = owner
        _ = token
    }
}
