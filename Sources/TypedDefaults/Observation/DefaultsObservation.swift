import Dispatch

/// A running observation; it ends on ``invalidate()``, when this token is released, or, after
/// ``tieToLifetime(of:)``, when the object it is tied to goes away.
///
/// ## Usage
/// ```swift
/// final class Player {
///     init() {
///         Defaults.observe(\.volume) { change in print(change.newValue) }
///             .tieToLifetime(of: self)   // ends when the player does
///     }
/// }
/// ```
public final class DefaultsObservation: Sendable {
    private struct State: Sendable {
        var invalidated = false
        var cancel: (@Sendable () -> Void)?
        var tiedTo: WeakReference?
        /// A tied observation keeps itself alive until its object goes away.
        var keepAlive: DefaultsObservation?
    }

    private let state = Locked(State())
    /// Where the observer's callbacks run, one at a time and in order.
    let queue: DispatchQueue

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// Sets what ending the observation undoes (its registration with the suite).
    func onInvalidate(_ cancel: @escaping @Sendable () -> Void) {
        let alreadyInvalidated = state.withLock { state in
            if !state.invalidated { state.cancel = cancel }
            return state.invalidated
        }
        if alreadyInvalidated { cancel() }
    }

    /// Whether the observation is still running.
    public var isActive: Bool {
        let tiedObjectGone = state.withLock { state in state.tiedTo.map { $0.object == nil } ?? false }
        if tiedObjectGone { invalidate() }
        return state.withLock { !$0.invalidated }
    }

    /// Ends the observation: no callback starts after this returns (one already running finishes).
    public func invalidate() {
        let (cancel, keepAlive) = state.withLock { state in
            defer {
                state.invalidated = true
                state.cancel = nil
                state.keepAlive = nil
                state.tiedTo = nil
            }
            return (state.cancel, state.keepAlive)
        }
        cancel?()
        _ = keepAlive
    }

    /// Keeps the observation running for as long as `object` lives, whether or not this token is kept.
    ///
    /// The observation ends at the first change after `object` is gone.
    @discardableResult
    public func tieToLifetime(of object: AnyObject) -> Self {
        state.withLock { state in
            guard !state.invalidated else { return }
            state.tiedTo = WeakReference(object: object)
            state.keepAlive = self
        }
        return self
    }

    /// Undoes ``tieToLifetime(of:)``: the observation runs for as long as this token is kept again, or
    /// until ``invalidate()``.
    ///
    /// ```swift
    /// let token = Defaults.observe(\.volume) { _ in }.tieToLifetime(of: player)
    /// token.removeLifetimeTie()   // now ends when `token` is released
    /// ```
    public func removeLifetimeTie() {
        let keepAlive = state.withLock { state in
            defer {
                state.tiedTo = nil
                state.keepAlive = nil
            }
            return state.keepAlive
        }
        // Released outside the lock: it may be the last reference, and its deinit takes the lock.
        _ = keepAlive
    }

    /// Runs `callback` on the observer's queue, unless the observation has ended by then.
    func deliver(_ callback: @escaping @Sendable () -> Void) {
        queue.async { [self] in runIfActive(callback) }
    }

    /// Runs `callback` here and now, unless the observation has ended.
    func runIfActive(_ callback: @Sendable () -> Void) {
        guard isActive else { return }
        callback()
    }

    deinit {
        state.withLock { $0.cancel }?()
    }
}

/// A weak reference that can sit in a lock-guarded state.
// @unchecked: used only under `DefaultsObservation.state`'s lock.
private struct WeakReference: @unchecked Sendable {
    // Only read and written while holding `DefaultsObservation.state`'s lock.
    weak var object: AnyObject?
}
