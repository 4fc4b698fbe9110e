import Foundation

#if canImport(ObjectiveC)
/// Hears of changes of a `UserDefaults` instance's keys, other processes' included, by key-value observing.
///
/// Foundation on Apple platforms tells observers of a key of a suite's instance when any process changes it
/// (an app and its extensions sharing an app group's suite, `defaults write`). The callback names the key
/// only; the store reads the value itself, outside Foundation's call.
final class KeyValueObserver: NSObject, @unchecked Sendable {
    // `observed` is only read or written while holding `UserDefaultsStore.foundationLock` (in `observe`), or in
    // `deinit`, when nothing else can reach the object.
    private let defaults: UserDefaults
    private let onChange: @Sendable (String) -> Void
    private var observed: Set<String> = []

    /// Whether other processes' changes reach `onChange` on this platform.
    static let seesOtherProcesses = true

    init(defaults: UserDefaults, onChange: @escaping @Sendable (String) -> Void) {
        self.defaults = defaults
        self.onChange = onChange
    }

    /// Observes exactly `keys` from now on.
    func observe(_ keys: Set<String>) {
        for key in keys.subtracting(observed) {
            defaults.addObserver(self, forKeyPath: key, options: [], context: nil)
        }
        for key in observed.subtracting(keys) {
            defaults.removeObserver(self, forKeyPath: key, context: nil)
        }
        observed = keys
    }

    // Called on the thread that made the change: the writer's for a change made in this process (inside
    // `UserDefaultsStore`'s writes), any thread for another process's. So it only hands the key on.
    override func observeValue(
        forKeyPath keyPath: String?,
        of object: Any?,
        change: [NSKeyValueChangeKey: Any]?,
        context: UnsafeMutableRawPointer?
    ) {
        guard let keyPath else { return }
        onChange(keyPath)
    }

    deinit {
        for key in observed {
            defaults.removeObserver(self, forKeyPath: key, context: nil)
        }
    }
}
#else
/// Foundation on Linux has no key-value observing and tells nothing of other processes' writes to a
/// `UserDefaults` suite, so this observer hears nothing; changes made through the store are still announced.
final class KeyValueObserver: Sendable {
    /// Whether other processes' changes reach `onChange` on this platform.
    static let seesOtherProcesses = false

    init(defaults: UserDefaults, onChange: @escaping @Sendable (String) -> Void) {}

    /// Observes exactly `keys` from now on (nothing to do here).
    func observe(_ keys: Set<String>) {}
}
#endif
