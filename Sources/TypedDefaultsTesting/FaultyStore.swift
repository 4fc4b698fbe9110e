import Foundation
import TypedDefaults

/// An in-memory store that fails when told to: for testing how an app copes with writes that fail, flushes
/// that fail or take long, and settings changed by another process.
///
/// Without faults it behaves like a durable store that keeps everything in memory: writes apply at once,
/// ``flush()`` copies them to ``durableValues`` (what a new process would find), and `modify` (a batch with
/// expectations) is durable when it returns. It passes ``DefaultsStoreConformance``. Every property may be
/// read and set from any thread while the store is in use.
///
/// ## Usage
/// ```swift
/// @Test func savingReportsAFullDisk() throws {
///     let store = FaultyStore()
///     let settings = DefaultsAdapter(store: store, keyStore: DefaultsKeys(), writePolicy: .immediate)
///     store.failWrites(reason: "the disk is full")
///
///     #expect(throws: DefaultsError.self) { try settings.set("Ann", for: \.username) }
///     #expect(store.storedValues["username"] == nil)
///
///     store.removeFaults()
///     store.simulateExternalChange(["username": .string("Bob")])   // observers hear of it
/// }
/// ```
public final class FaultyStore: DefaultsStore, @unchecked Sendable {
    // `state` is only read or written while holding `condition`'s lock.
    private let condition = NSCondition()
    private var state: State

    /// The name diagnostics and errors use, `"faulty"` unless given.
    public let name: String
    /// Announces every change, those made through the store and those ``simulateExternalChange(_:)`` makes.
    public let changes = DefaultsStoreChanges()

    private struct State {
        var values: [String: PropertyListValue]
        var durable: [String: PropertyListValue]
        var writeFault: Fault?
        var flushFault: Fault?
        var flushDelay: Duration = .zero
        var holdsFlushes = false
        var waitingFlushes = 0
        var applyCount = 0
        var flushCount = 0
    }

    /// An error to throw: one given as it is, or a `writeFailed` naming the key a batch writes.
    private enum Fault: Equatable {
        case error(DefaultsError)
        case writeFailed(reason: String)

        func error(suite: String, batch: DefaultsBatch?) -> DefaultsError {
            switch self {
            case .error(let error):
                return error
            case .writeFailed(let reason):
                let key = batch.flatMap { $0.writes.count == 1 ? $0.writes.keys.first : nil }
                return .writeFailed(suite: suite, key: key, reason: reason)
            }
        }
    }

    /// Creates a store holding `values`, durably, as if a previous run had saved them.
    ///
    /// ```swift
    /// let store = FaultyStore(["launchCount": .integer(3)])
    /// ```
    public init(_ values: [String: PropertyListValue] = [:], name: String = "faulty") {
        self.state = State(values: values, durable: values)
        self.name = name
    }

    private func withState<Result, Failure>(_ body: (inout State) throws(Failure) -> Result) throws(Failure) -> Result {
        condition.lock()
        defer { condition.unlock() }
        return try body(&state)
    }

    // MARK: Faults

    /// Makes every later ``apply(_:)`` throw `error` and change nothing, until ``removeFaults()``.
    ///
    /// ```swift
    /// store.failWrites(with: .writeFailed(suite: "faulty", key: nil, reason: "read-only file system"))
    /// ```
    public func failWrites(with error: DefaultsError) {
        withState { $0.writeFault = .error(error) }
    }

    /// Makes every later ``apply(_:)`` throw ``DefaultsError/writeFailed(suite:key:reason:)`` with `reason`
    /// (and the key, when the batch writes one) and change nothing, until ``removeFaults()``.
    ///
    /// ```swift
    /// store.failWrites(reason: "the disk is full")
    /// ```
    public func failWrites(reason: String = "FaultyStore was told to fail writes") {
        withState { $0.writeFault = .writeFailed(reason: reason) }
    }

    /// Makes every later ``flush()`` throw `error`, until ``removeFaults()``; the values stay applied in memory,
    /// and batches with expectations, which must be durable when applied, throw it too.
    ///
    /// ```swift
    /// store.failFlushes(with: .writeFailed(suite: "faulty", key: nil, reason: "the disk is full"))
    /// ```
    public func failFlushes(with error: DefaultsError) {
        withState { $0.flushFault = .error(error) }
    }

    /// Makes every later ``flush()`` throw ``DefaultsError/writeFailed(suite:key:reason:)`` with `reason`.
    ///
    /// ```swift
    /// store.failFlushes(reason: "the disk is full")
    /// ```
    public func failFlushes(reason: String = "FaultyStore was told to fail flushes") {
        withState { $0.flushFault = .writeFailed(reason: reason) }
    }

    /// How long every ``flush()`` waits before it makes values durable; zero, the default, for no wait.
    ///
    /// ```swift
    /// store.flushDelay = .milliseconds(300)   // a slow disk
    /// ```
    public var flushDelay: Duration {
        get { withState { $0.flushDelay } }
        set { withState { $0.flushDelay = newValue } }
    }

    /// While `true`, every ``flush()`` waits (after ``flushDelay``) until it is set to `false` again: for
    /// looking at an app while a save is underway, without guessing how long it takes.
    ///
    /// ```swift
    /// store.holdsFlushes = true
    /// let saving = Task { try await settings.flush() }
    /// // ... the app shows "Saving…" ...
    /// store.holdsFlushes = false
    /// try await saving.value
    /// ```
    public var holdsFlushes: Bool {
        get { withState { $0.holdsFlushes } }
        set {
            withState { $0.holdsFlushes = newValue }
            condition.broadcast()
        }
    }

    /// Clears every fault and delay: writes and flushes succeed again, and held flushes go on.
    ///
    /// ```swift
    /// store.removeFaults()
    /// ```
    public func removeFaults() {
        withState { state in
            state.writeFault = nil
            state.flushFault = nil
            state.flushDelay = .zero
            state.holdsFlushes = false
        }
        condition.broadcast()
    }

    // MARK: What happened

    /// Everything the store holds now, keyed by name.
    ///
    /// ```swift
    /// #expect(store.storedValues["username"] == .string("Ann"))
    /// ```
    public var storedValues: [String: PropertyListValue] { snapshot() }

    /// What the last successful flush (or batch with expectations) made durable: what a new process would find.
    ///
    /// ```swift
    /// try settings.flush()
    /// #expect(store.durableValues["username"] == .string("Ann"))
    /// ```
    public var durableValues: [String: PropertyListValue] { withState { $0.durable } }

    /// How many times ``apply(_:)`` was called, failed calls included.
    ///
    /// ```swift
    /// #expect(store.applyCount == 1)
    /// ```
    public var applyCount: Int { withState { $0.applyCount } }

    /// How many times ``flush()`` was called, failed calls included.
    ///
    /// ```swift
    /// #expect(store.flushCount >= 1)
    /// ```
    public var flushCount: Int { withState { $0.flushCount } }

    /// How many flushes are waiting now, for ``flushDelay`` or because the store ``holdsFlushes``.
    ///
    /// ```swift
    /// while store.waitingFlushes == 0 { await Task.yield() }
    /// ```
    public var waitingFlushes: Int { withState { $0.waitingFlushes } }

    // MARK: Another process

    /// Changes values as another process would, and announces the changes as a file watch would.
    ///
    /// `nil` removes a key. The values become durable too, as they are in the other process's file.
    ///
    /// Faults do not apply: the other process wrote successfully.
    ///
    /// ```swift
    /// store.simulateExternalChange(["theme": .string("dark"), "legacyTheme": nil])
    /// ```
    public func simulateExternalChange(_ values: [String: PropertyListValue?]) {
        withState { state in
            guard let changed = DefaultsBatch(writes: values).apply(to: &state.values) else { return }
            _ = DefaultsBatch(writes: values).apply(to: &state.durable)
            changes.publish(changed)
        }
    }

    // MARK: DefaultsStore

    /// The value the store holds for `key`.
    public func value(forKey key: String) -> PropertyListValue? {
        withState { $0.values[key] }
    }

    /// Everything the store holds, as one state.
    public func snapshot() -> [String: PropertyListValue] {
        withState { $0.values }
    }

    /// Applies `batch` and announces what it changed, or throws the write fault; a batch with expectations is
    /// made durable at once, and throws the flush fault instead if one is set.
    public func apply(_ batch: DefaultsBatch) throws(DefaultsError) -> Bool {
        try withState { state throws(DefaultsError) -> Bool in
            state.applyCount += 1
            if let fault = state.writeFault { throw fault.error(suite: name, batch: batch) }
            if batch.expected != nil, let fault = state.flushFault { throw fault.error(suite: name, batch: batch) }
            guard let changed = batch.apply(to: &state.values) else { return false }
            if batch.expected != nil { state.durable = state.values }
            // Announced under the lock, so that announcements keep the order of the changes.
            changes.publish(changed)
            return true
        }
    }

    /// Waits for ``flushDelay`` and while the store ``holdsFlushes``, then makes every applied batch durable,
    /// or throws the flush fault.
    public func flush() throws(DefaultsError) {
        let delay = withState { state in
            state.flushCount += 1
            state.waitingFlushes += 1
            return state.flushDelay
        }
        if delay > .zero { Thread.sleep(forTimeInterval: delay.seconds) }
        // Not `withState`: waiting releases the lock, so no access to `state` may span the wait.
        condition.lock()
        while state.holdsFlushes { condition.wait() }
        state.waitingFlushes -= 1
        let fault = state.flushFault
        if fault == nil { state.durable = state.values }
        condition.unlock()
        if let fault { throw fault.error(suite: name, batch: nil) }
    }
}

extension Duration {
    fileprivate var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
