/// A suite that cannot be opened, such as `.standard` when neither `XDG_CONFIG_HOME` nor `HOME` is set: reads
/// return defaults, and every write fails with the reason.
final class UnavailableStore: DefaultsStore {
    let name: String
    let reason: DefaultsError
    let changes = DefaultsStoreChanges()

    init(name: String, reason: DefaultsError) {
        self.name = name
        self.reason = reason
    }

    func value(forKey key: String) -> PropertyListValue? { nil }
    func snapshot() -> [String: PropertyListValue] { [:] }
    func apply(_ batch: DefaultsBatch) throws(DefaultsError) -> Bool { throw reason }
    func flush() throws(DefaultsError) { throw reason }
    func checkHealth() throws(DefaultsError) { throw reason }
}
