import Foundation
import Testing

@testable import TypedDefaults

#if !TYPED_DEFAULTS_FOUNDATION_STORAGE  // needs the Linux file store; see FileStoreOnly.swift

@Suite("Removing a suite")
struct RemoveSuiteTests {
    @Test("removeSuite() leaves nothing of the suite on disk, tells observers, and a later write brings it back")
    func removesTheFiles() throws {
        let suite = IsolatedSuite()
        let removed = Recorder<String>()
        let token = suite.adapter.observeStoredValues { changes in
            for change in changes where change.newValue == nil { removed.append(change.key) }
        }
        suite.adapter.username = "ann"
        suite.adapter.launchCount = 3
        try suite.adapter.flush()
        // Let the backup copy be written, so the test sees that it goes too.
        try #require(suite.adapter.store as? FileStore).finishBackgroundWork()
        let beside = try FileManager.default.contentsOfDirectory(atPath: suite.directory.url.path)
        #expect(beside.contains(".\(suite.name).plist.backup"), "\(beside)")

        try suite.adapter.removeSuite()

        #expect(try FileManager.default.contentsOfDirectory(atPath: suite.directory.url.path).isEmpty)
        #expect(suite.adapter.storedValues().isEmpty)
        #expect(suite.adapter.username == nil)
        #expect(eventually { Set(removed.all) == ["username", "launchCount"] })

        // A second adapter over the same directory, as another program would open it, finds no suite either.
        let other = try DefaultsAdapter(
            suiteName: suite.name,
            directory: suite.directory.url,
            keyStore: DefaultsKeys(),
            launchArguments: .ignored
        )
        #expect(other.storedValues().isEmpty)

        suite.adapter.launchCount = 4
        try suite.adapter.flush()
        #expect(try suite.fileContents()["launchCount"] as? Int == 4)
        token.invalidate()
    }

    @Test("removeSuite() of a suite never written leaves no file behind")
    func neverWritten() throws {
        let suite = IsolatedSuite()
        try suite.adapter.removeSuite()
        #expect(try FileManager.default.contentsOfDirectory(atPath: suite.directory.url.path).isEmpty)
    }

    @Test("a store that keeps no file is emptied")
    func otherStores() throws {
        let adapter = DefaultsAdapter(store: InMemoryStore(), keyStore: DefaultsKeys())
        adapter.username = "ann"
        try adapter.removeSuite()
        #expect(adapter.storedValues().isEmpty)
    }
}
#endif
