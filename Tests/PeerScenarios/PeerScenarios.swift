import Foundation
import Testing

@testable import TypedDefaults

/// The scenarios' suite: a file in a temporary directory of this test process's own, never `~/.config`.
enum ScenarioSuite {
    static let name = "peer-scenarios"

    /// Removed when the process exits.
    static let directory: URL = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("PeerScenarios-\(getpid())")
        try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        atexit {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("PeerScenarios-\(getpid())")
            try? FileManager.default.removeItem(at: directory)
        }
        return directory
    }()

    static var file: URL { directory.appendingPathComponent(name + ".plist") }

    /// What the suite's file holds, as Foundation's property-list reader parses it.
    static func fileContents() throws -> [String: Any] {
        try Defaults.flush()
        let data = try Data(contentsOf: file)
        return try #require(PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
    }
}

/// A shared-suite adapter under the global name, as SwiftyUserDefaults' README shows: in this module,
/// `Defaults` is this suite, not `.standard`.
let Defaults: DefaultsAdapter<DefaultsKeys> = {
    #if TYPED_DEFAULTS_FOUNDATION_STORAGE
    UserDefaultsStore.testLocations.withLock {
        $0.suites[ScenarioSuite.name] = ScenarioSuite.directory.path + "/" + ScenarioSuite.name
    }
    return try! DefaultsAdapter(suiteName: ScenarioSuite.name, keyStore: DefaultsKeys(), launchArguments: .ignored)
    #else
    return try! DefaultsAdapter(
        suiteName: ScenarioSuite.name,
        directory: ScenarioSuite.directory,
        keyStore: DefaultsKeys(),
        launchArguments: .ignored
    )
    #endif
}()

/// Every scenario, one at a time: they share the suite above, and each starts from an empty one.
@Suite("PeerScenarios", .serialized)
struct PeerScenarios {
    init() {
        Defaults.removeAll()
    }

    @Test("the global Defaults of this module is the shared suite, in its own file")
    func sharedSuiteUnderTheGlobalName() throws {
        Defaults[Key<Int>("launchCount", default: 0)] += 1
        #expect(try ScenarioSuite.fileContents()["launchCount"] as? Int == 1)
        #expect(Defaults.store.name == ScenarioSuite.name)
    }
}
