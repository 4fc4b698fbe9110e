import Dispatch
import Foundation
import TypedDefaults

/// A value reached only while holding a lock: `NSLock`, which ThreadSanitizer sees (the Synchronization
/// module's `Mutex` waits on a futex it cannot see).
final class Guarded<State>: @unchecked Sendable {
    // `state` is only read or written while holding `lock`.
    private let lock = NSLock()
    private var state: State

    init(_ state: State) {
        self.state = state
    }

    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}

/// The failures and warnings one check found, collected from any thread.
final class FailureLog: Sendable {
    private let entries = Guarded<[(message: String, isWarning: Bool)]>([])

    func record(_ message: String, isWarning: Bool) {
        entries.withLock { $0.append((message, isWarning)) }
    }

    var all: [(message: String, isWarning: Bool)] { entries.withLock { $0 } }
}

/// Runs `body(0)` … `body(count - 1)` on threads of their own, all at once, and returns when all have returned.
///
/// Threads rather than tasks: the bodies block (stores take locks and may wait for files), and the shared
/// task pool has as few threads as the machine has cores, too few to make writers and readers overlap.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread.detachNewThread {
                body(index)
                group.leave()
            }
        }
        group.notify(queue: .global()) { continuation.resume() }
    }
}

/// Waits until `condition` holds, for at most `timeout`; returns whether it held.
func eventually(within timeout: Duration, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return true
}

/// Waits until every callback queued on `queue` so far has run.
func drain(_ queue: DispatchQueue) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        queue.async { continuation.resume() }
    }
}

/// Everything an observation of all stored values delivered, in order.
final class ChangeRecorder: Sendable {
    /// The serial queue the observation delivers on, so that draining it waits for every queued delivery.
    let queue = DispatchQueue(label: "TypedDefaultsTesting.changes")
    private let recorded = Guarded<[DefaultsStoreChange]>([])
    private let observation = Guarded<DefaultsObservation?>(nil)

    init<KeyStore>(_ adapter: DefaultsAdapter<KeyStore>) {
        let token = adapter.observeStoredValues(queue: queue) { [recorded] changes in
            recorded.withLock { recorded in
                recorded += changes.map {
                    DefaultsStoreChange(key: $0.key, oldValue: $0.oldValue, newValue: $0.newValue)
                }
            }
        }
        observation.withLock { $0 = token }
    }

    var changes: [DefaultsStoreChange] { recorded.withLock { $0 } }

    /// Forgets what was recorded so far.
    func reset() {
        recorded.withLock { $0.removeAll() }
    }

    /// Waits until a change of `key` to `value` arrives (at most `timeout`), then until every delivery queued
    /// by then has run; returns whether it arrived.
    ///
    /// A store announces a change once it has applied it, so by the time a marker written last arrives, every
    /// change announced before it has arrived too, and any extra announcement of them with it.
    func waitFor(key: String, value: PropertyListValue?, within timeout: Duration) async -> Bool {
        let arrived = await eventually(within: timeout) {
            changes.contains { $0.key == key && $0.newValue.isIdentical(to: value) }
        }
        await drain(queue)
        return arrived
    }

    func stop() {
        observation.withLock { $0 }?.invalidate()
    }
}

extension PropertyListValue? {
    /// A short description for failure messages: the value's summary, or "nothing".
    var described: String {
        switch self {
        case .some(let value): value.described
        case .none: "nothing"
        }
    }
}

extension PropertyListValue {
    /// A description that tells apart what `summary` does not: the sign of zero, a NaN's bits, the bytes of
    /// a string.
    var described: String {
        switch self {
        case .double(let value):
            "real \(value) (bits 0x\(String(value.bitPattern, radix: 16)))"
        case .string(let text) where text.unicodeScalars.contains(where: { !$0.isASCII }) || text.isEmpty:
            "string \(String(reflecting: text)) (UTF-8 \(text.utf8.map { String($0, radix: 16) }.joined(separator: " ")))"
        case .date(let date):
            "date \(date.timeIntervalSinceReferenceDate) s from 2001"
        case .array(let items):
            Self.shortened("[" + items.map(\.described).joined(separator: ", ") + "]")
        case .dictionary(let entries):
            Self.shortened(
                "["
                    + entries.sorted { $0.key < $1.key }.map { "\(String(reflecting: $0.key)): \($0.value.described)" }
                    .joined(separator: ", ") + "]"
            )
        default:
            summary
        }
    }

    /// `text`, cut short if it would make a failure message hard to read.
    private static func shortened(_ text: String) -> String {
        text.count > 300 ? String(text.prefix(300)) + "…" : text
    }
}

extension DefaultsStoreChange {
    var described: String { "\(String(reflecting: key)): \(oldValue.described) → \(newValue.described)" }

    /// Whether both describe the same change, bit for bit.
    func isIdentical(to other: DefaultsStoreChange) -> Bool {
        key == other.key && oldValue.isIdentical(to: other.oldValue) && newValue.isIdentical(to: other.newValue)
    }
}
