/// A suite that cannot be opened, such as `.standard` when neither `XDG_CONFIG_HOME` nor `HOME` is set: reads
/// return defaults, and every write fails with the reason.
struct UnavailableStorage: DefaultsStorage {
    let suiteName: String
    let reason: DefaultsError
    let changes = ChangeHub()

    func value(forKey key: String) -> PropertyListValue? { nil }
    func hasValue(forKey key: String) -> Bool { false }
    func allValues() -> [String: PropertyListValue] { [:] }

    func modifyAll(
        _ transform: (inout [String: PropertyListValue]) throws(DefaultsError) -> Void
    ) throws(DefaultsError) { throw reason }

    func setValue(_ value: PropertyListValue?, forKey key: String) throws(DefaultsError) { throw reason }
    func removeAll() throws(DefaultsError) { throw reason }

    func modify(
        _ key: String,
        _ transform: (PropertyListValue?) throws(DefaultsError) -> PropertyListValue?
    ) throws(DefaultsError) { throw reason }

    func flush() throws(DefaultsError) { throw reason }
    func scheduleFlush(within delay: Duration) {}

    func finishBackgroundWork() {}
    func checkFile() throws(DefaultsError) { throw reason }
}
