import Foundation
import TypedDefaults

/// A store of the program's own, as a user writes one over a server: values in memory, made durable only by
/// `flush()`, which writes the string values to a JSON file (what "the server" holds).
///
/// Tests read the file to tell whether the library flushed the store at the end of the process.
final class JournalStore: DefaultsStore {
    let name = "journal"
    private let memory = InMemoryStore()
    private let file: URL

    init(file: URL) {
        self.file = file
    }

    var changes: DefaultsStoreChanges { memory.changes }
    func value(forKey key: String) -> PropertyListValue? { memory.value(forKey: key) }
    func snapshot() -> [String: PropertyListValue] { memory.snapshot() }
    func apply(_ batch: DefaultsBatch) throws(DefaultsError) -> Bool { try memory.apply(batch) }

    func flush() throws(DefaultsError) {
        var strings: [String: String] = [:]
        for (key, value) in memory.snapshot() {
            if case .string(let string) = value { strings[key] = string }
        }
        do {
            try JSONSerialization.data(withJSONObject: strings, options: .sortedKeys).write(to: file, options: .atomic)
        } catch {
            throw .writeFailed(suite: name, key: nil, reason: "\(error)")
        }
    }
}
