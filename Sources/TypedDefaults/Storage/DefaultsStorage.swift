/// Where an adapter's values live: the one layer that reads and writes them.
///
/// Values cross this boundary as ``PropertyListValue`` only, already checked by
/// ``PropertyListValue/checkStorable()``, so nothing Foundation cannot store reaches it.
protocol DefaultsStorage: Sendable {
    /// The suite's name for diagnostics and errors: its name, `"standard"`, or `"in-memory"`.
    var suiteName: String { get }

    /// Where the suite's changes are announced: every change of a stored value, made through any adapter in
    /// this process or (for files) by another process.
    var changes: ChangeHub { get }

    /// The value stored for `key`, with what a costly bridge last decoded from that very value, if anything.
    func valueForDecoding(forKey key: String) -> (value: PropertyListValue?, decoded: AnyDecodedValue?)

    /// Keeps what a costly bridge decoded from `source`, while `key` still holds `source`.
    func keepDecoded(_ decoded: AnyDecodedValue, forKey key: String, decodedFrom source: PropertyListValue)

    /// The value stored for `key`, or `nil` if none is stored or it is not a property-list value.
    func value(forKey key: String) -> PropertyListValue?

    /// Every value the suite stores, keyed by name.
    func allValues() -> [String: PropertyListValue]

    /// Replaces all the suite's values with what `transform` makes of them, as one atomic, durable step.
    func modifyAll(
        _ transform: (inout [String: PropertyListValue]) throws(DefaultsError) -> Void
    ) throws(DefaultsError)

    /// Whether the suite itself stores a value for `key`.
    func hasValue(forKey key: String) -> Bool

    /// Stores `value` for `key` (removes the key for `nil`); durable after the next ``flush()``.
    func setValue(_ value: PropertyListValue?, forKey key: String) throws(DefaultsError)

    /// Removes every value the suite stores; durable after the next ``flush()``.
    func removeAll() throws(DefaultsError)

    /// Replaces the value for `key` with what `transform` makes of the current one, atomically with respect
    /// to every other writer of the suite, and durably.
    func modify(
        _ key: String,
        _ transform: (PropertyListValue?) throws(DefaultsError) -> PropertyListValue?
    ) throws(DefaultsError)

    /// Makes every earlier write durable before returning.
    func flush() throws(DefaultsError)

    /// Waits for work that follows a write in the background (the backup copy of a file).
    func finishBackgroundWork()

    /// Arranges for a flush within `delay` of now, unless one is already arranged.
    func scheduleFlush(within delay: Duration)

    /// Throws if the suite's file is damaged, unreadable or unsafe.
    func checkFile() throws(DefaultsError)
}

extension DefaultsStorage {
    /// Storage that keeps no decoded values: every read decodes.
    func valueForDecoding(forKey key: String) -> (value: PropertyListValue?, decoded: AnyDecodedValue?) {
        (value(forKey: key), nil)
    }

    func keepDecoded(_ decoded: AnyDecodedValue, forKey key: String, decodedFrom source: PropertyListValue) {}
}
