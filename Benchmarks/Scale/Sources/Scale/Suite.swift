#if os(Linux)
import Foundation
import TypedDefaults

/// What every suite holds: `size` string keys whose names and values are 30 characters, and two Int keys.
enum Seed {
    /// The seeded value of "k", the key that is read first and written.
    static let k = 42
    /// The seeded value of "k2", the key read while others write.
    static let k2 = 4242

    /// The name of the `index`th string key: 30 characters.
    static func key(_ index: Int) -> String {
        "bulk.setting.identifier." + String(String(1_000_000 + index).dropFirst())
    }

    /// The value of the `index`th string key: 30 characters.
    static func value(_ index: Int) -> String {
        "value of bulk setting #" + String(String(1_000_000 + index).dropFirst()) + "."
    }
}

/// A temporary directory for the suites of one size, removed at the end, and the seeded file every suite starts
/// as (serialized once: 100,000 keys take about a second to serialize).
final class Workspace {
    let size: Int
    let directory: URL
    private let seeded: Data

    init(size: Int) throws {
        self.size = size
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("typed-defaults-scale-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var dictionary: [String: Any] = ["k": Seed.k, "k2": Seed.k2]
        for index in 0..<size { dictionary[Seed.key(index)] = Seed.value(index) }
        seeded = try PropertyListSerialization.data(fromPropertyList: dictionary, format: .xml, options: 0)
    }

    /// A freshly seeded suite, in a directory of its own so that no suite's file watch sees another's writes.
    func suite(_ name: String) throws -> Suite {
        let folder = directory.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let suite = Suite(directory: folder, name: name, size: size)
        try seeded.write(to: URL(fileURLWithPath: suite.file))
        return suite
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}

/// One suite's file, opened by TypedDefaults or by Foundation.
struct Suite: Sendable {
    let directory: URL
    let name: String
    /// How many string keys it was seeded with.
    let size: Int

    /// The suite name that makes Foundation on Linux use `<directory>/<name>.plist`.
    var foundationName: String { directory.path + "/" + name }
    var file: String { foundationName + ".plist" }

    /// An adapter on the suite, as an application would open it.
    func adapter(writePolicy: WritePolicy = .coalesced) throws -> DefaultsAdapter<DefaultsKeys> {
        try DefaultsAdapter(
            suiteName: name,
            directory: directory,
            keyStore: DefaultsKeys(),
            launchArguments: .ignored,
            writePolicy: writePolicy
        )
    }

    /// Foundation's `UserDefaults` on the same file.
    func foundation() throws -> UserDefaults {
        guard let defaults = UserDefaults(suiteName: foundationName) else {
            throw ScaleError("Foundation refused the suite \(foundationName)")
        }
        return defaults
    }

    /// Checks that the file on disk holds each of `expected`'s Int values, "k2" as seeded unless `expected` names
    /// it, and every seeded string key.
    func verify(_ expected: [String: Int]) throws {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ScaleError("\(file) is gone")
        }
        let plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        guard let dictionary = plist as? [String: Any] else {
            throw ScaleError("\(file) does not hold a dictionary")
        }
        var expected = expected
        if expected["k2"] == nil { expected["k2"] = Seed.k2 }
        for (key, value) in expected.sorted(by: { $0.key < $1.key }) {
            let stored = (dictionary[key] as? NSNumber)?.intValue ?? dictionary[key] as? Int
            guard stored == value else {
                throw ScaleError("\(file) holds \(key) = \(stored.map(String.init) ?? "nothing"), expected \(value)")
            }
        }
        let strings = dictionary.keys.filter { $0.hasPrefix("bulk.") }.count
        guard strings == size else {
            throw ScaleError("\(file) holds \(strings) of the \(size) seeded string keys")
        }
        if size > 0 {
            let last = Seed.key(size - 1)
            guard dictionary[last] as? String == Seed.value(size - 1) else {
                throw ScaleError("\(file) holds \(last) = \(dictionary[last] ?? "nothing")")
            }
        }
    }
}

/// The keys the measurements use.
enum Keys {
    static let k = Key<Int>("k", default: 0)
    static let k2 = Key<Int>("k2", default: 0)
    /// The key another process writes during the read-latency measurement.
    static let other = Key<Int>("c", default: 0)
}
#endif
