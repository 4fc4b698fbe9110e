import Foundation

// Other processes' changes: the key-value observations that tell observers of writes made elsewhere.
extension UserDefaultsStore {
    /// Watches exactly the keys observed one by one, remembering what observers last heard of each.
    ///
    /// Key-value observing reads a `.` in a key as a path and `@` as an operator, so keys with those are not
    /// watched; a diagnostic says so once.
    func observedKeysChanged() {
        var unwatchable: [String] = []
        Self.withFoundation {
            // Read under the lock: calls overtake each other (a thread that stopped observing a key reaching the
            // lock after one that started again), and only the last to take it must decide, on the newest keys.
            let wanted = changes.observedKeys
            let watched = wanted.filter { key in
                let watchable = Self.isObservableByKeyValueObserving(key)
                if !watchable, announced[key] == nil { unwatchable.append(key) }
                return watchable
            }
            for key in announced.keys where !watched.contains(key) { announced[key] = nil }
            for key in watched where announced[key] == nil { announced[key] = .some(currentValue(forKey: key)) }
            if keyObserver == nil, !watched.isEmpty {
                keyObserver = KeyValueObserver(defaults: defaults) { [weak self] key in self?.noticeChange(ofKey: key) }
            }
            keyObserver?.observe(watched)
        }
        guard KeyValueObserver.seesOtherProcesses else { return }
        for key in unwatchable {
            DefaultsDiagnostics.report(
                DefaultsDiagnostic(
                    kind: .observationLimited,
                    suite: name,
                    key: key,
                    message: "other processes' changes of \(String(reflecting: key)) are not seen: key-value "
                        + "observing reads \".\" and \"@\" in a key as a path"
                ),
                oncePerProcess: true
            )
        }
    }

    static func isObservableByKeyValueObserving(_ key: String) -> Bool {
        !key.isEmpty && !key.contains(".") && !key.hasPrefix("@")
    }

    /// Called when Foundation says `key` may have changed (another process wrote it, or this one did):
    /// announces the change if observers have not heard of it yet.
    func noticeChange(ofKey key: String) {
        Self.recheckQueue.async { [weak self] in
            guard let self else { return }
            Self.withFoundation {
                guard let last = announced[key] else { return }
                let current = currentValue(forKey: key)
                guard let change = DefaultsStoreChange(key: key, from: last, to: current) else { return }
                announced[key] = .some(current)
                changes.publish([change])
            }
        }
    }
}
