import Foundation
import Testing
import TypedDefaults

/// A directory of its own under the system's temporary directory, removed with everything in it when the
/// test process exits (stores flush in the background, so not sooner); never the real `~/.config`.
enum Scratch {
    static let root: URL = {
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("StoreConformanceTests-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        atexit {
            let root = FileManager.default.temporaryDirectory
                .appendingPathComponent("StoreConformanceTests-\(ProcessInfo.processInfo.processIdentifier)")
            try? FileManager.default.removeItem(at: root)
        }
        return root
    }()

    /// A new, empty directory.
    static func directory() throws -> URL {
        let url = root.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// Errors of the durable readers.
struct PropertyListFileError: Error, CustomStringConvertible {
    var description: String
}

/// What a property-list file holds, as a new process reads it: Foundation's reader, then the library's
/// conversion; an absent file holds nothing.
func propertyListValues(at url: URL) throws -> [String: PropertyListValue] {
    guard FileManager.default.fileExists(atPath: url.path) else { return [:] }
    let data = try Data(contentsOf: url)
    let root = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
    guard case .dictionary(let values)? = PropertyListValue(foundationObject: root) else {
        throw PropertyListFileError(description: "\(url.path) does not hold a dictionary of property-list values")
    }
    return values
}

/// Writes `values` into the property-list file at `url` over what it holds, as another program would:
/// the whole file replaced at once by a rename.
func writeAsAnotherProgram(_ values: [String: PropertyListValue], to url: URL) throws {
    var merged = try propertyListValues(at: url)
    merged.merge(values) { _, new in new }
    let object = merged.mapValues(\.foundationObject)
    let data = try PropertyListSerialization.data(fromPropertyList: object, format: .xml, options: 0)
    try data.write(to: url, options: .atomic)
}

#if !TYPED_DEFAULTS_FOUNDATION_STORAGE
/// A new, empty suite in a directory of its own, opened with `FileStore.suite(_:directory:)`.
func newFileStore() throws -> FileStore {
    try FileStore.suite("conformance.\(UUID().uuidString)", directory: try Scratch.directory())
}

/// What a file store has made durable: its file, parsed.
@Sendable func fileStoreDurableValues(_ store: FileStore) throws -> [String: PropertyListValue] {
    guard let url = store.fileURL else { throw PropertyListFileError(description: "a FileStore without a file") }
    return try propertyListValues(at: url)
}
#endif

/// A new, empty `UserDefaultsStore` over `UserDefaults(suiteName:)` with an absolute path as the suite's name
/// (Foundation on Linux then keeps the suite in `<path>.plist`); the store's name is that path.
func newUserDefaultsStore() throws -> UserDefaultsStore {
    let path = try Scratch.directory().appendingPathComponent("suite").path
    let defaults = try #require(UserDefaults(suiteName: path))
    return UserDefaultsStore(defaults, name: path)
}

/// What a `UserDefaultsStore` from ``newUserDefaultsStore()`` has made durable: Foundation's file, parsed.
@Sendable func userDefaultsDurableValues(_ store: UserDefaultsStore) throws -> [String: PropertyListValue] {
    try propertyListValues(at: URL(fileURLWithPath: store.name + ".plist"))
}
