import Foundation

extension DefaultsAdapter {
    /// The file the suite is stored in, or `nil` for an in-memory store or a `UserDefaults` instance other
    /// than `.standard` (Foundation does not tell which file it uses).
    ///
    /// ```swift
    /// print(Defaults.fileURL?.path ?? "not in a file")   // ~/.config/<program>.plist
    /// ```
    public var fileURL: URL? { store.fileURL }

    /// Every value the suite stores, keyed by name, in its stored form.
    ///
    /// ```swift
    /// for (name, value) in Defaults.storedValues() { print(name, value.summary) }
    /// ```
    public func storedValues() -> [String: PropertyListValue] {
        store.snapshot()
    }

    /// Replaces all the suite's values with what `body` makes of them, as one step that is atomic with
    /// respect to every other writer of the suite, in any process, and durable when it returns.
    ///
    /// Keys and strings are checked as a write through a key is: a value a property list cannot carry throws
    /// ``DefaultsError/valueNotStorable(key:type:reason:)`` and nothing changes.
    ///
    /// ```swift
    /// try Defaults.modifyStoredValues { values in
    ///     values["newName"] = values.removeValue(forKey: "oldName")
    /// }
    /// ```
    public func modifyStoredValues(_ body: (inout [String: PropertyListValue]) -> Void) throws(DefaultsError) {
        ReadModifyWrite.noteWrite(to: store, key: nil)
        try ThreadContext.writing { () throws(DefaultsError) in
            defer { connection.decoded.forget(nil) }
            try store.modifyAll { values throws(DefaultsError) in
                body(&values)
                for (name, value) in values {
                    do {
                        try PropertyListValue.checkText(name, what: "the key name")
                        try value.checkStorable(underKey: name)
                    } catch {
                        throw .valueNotStorable(key: name, type: "PropertyListValue", reason: "\(error)")
                    }
                }
            }
        }
    }

    /// Removes the suite: every value, and for a suite in a ``FileStore`` (every suite on Linux) its file,
    /// lock and backup files, so that `defaults domains` no longer lists it, as
    /// `UserDefaults.removePersistentDomain(forName:)` does.
    ///
    /// Observers hear of each value removed. A write made afterwards, here or in another process, creates the
    /// suite anew. Any other store (``UserDefaultsStore`` included, whose files the system keeps) is emptied,
    /// durably. To empty the suite but keep its file, call ``removeAll()``.
    ///
    /// ```swift
    /// let settings = try DefaultsAdapter(suiteName: "com.example.app", keyStore: DefaultsKeys())
    /// try settings.removeSuite()
    /// ```
    public func removeSuite() throws(DefaultsError) {
        ReadModifyWrite.noteWrite(to: store, key: nil)
        try ThreadContext.writing { () throws(DefaultsError) in
            defer { connection.decoded.forget(nil) }
            try store.removeSuite()
        }
    }
}
