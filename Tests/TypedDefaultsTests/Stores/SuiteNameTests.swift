import Foundation
import Testing

@testable import TypedDefaults

#if !TYPED_DEFAULTS_FOUNDATION_STORAGE  // needs the Linux file store; see FileStoreOnly.swift

@Suite("Suite names and directories")
struct SuiteNameTests {
    @Test(
        "names that Foundation would turn into a wrong or hostile path are refused",
        arguments: [
            "", ".", "..", "a/b", "../escaped", "../../outside-config", "/some/absolute/target", "a\u{0}b", "tab\there",
            "line\nbreak", String(repeating: "x", count: 201), String(repeating: "é", count: 101), "NSGlobalDomain",
            ".GlobalPreferences", "nsglobaldomain", "kCFPreferencesAnyApplication",
        ]
    )
    func refused(name: String) throws {
        let parent = TemporaryConfigDirectory()
        let directory = parent.url.appendingPathComponent("config")
        let error = #expect(throws: DefaultsError.self) {
            try DefaultsAdapter(suiteName: name, directory: directory, keyStore: DefaultsKeys())
        }
        guard case .invalidSuiteName(let refusedName, let reason)? = error else {
            Issue.record("expected invalidSuiteName, got \(String(describing: error))")
            return
        }
        #expect(refusedName == name)
        #expect(!reason.isEmpty)
        #expect(error?.description.contains("invalid suite name") == true)
        // Nothing was created, in the directory or beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.url.path).isEmpty)
    }

    @Test(
        "unusual but harmless names work and stay inside the directory",
        arguments: [
            "with space", "emoji🙂", "com.example.app-1_2", "..dots", String(repeating: "x", count: 200),
        ]
    )
    func accepted(name: String) throws {
        let directory = TemporaryConfigDirectory()
        let defaults = try DefaultsAdapter(
            suiteName: name,
            directory: directory.url,
            keyStore: DefaultsKeys(),
            launchArguments: .ignored,
            writePolicy: .immediate
        )
        defaults[key: Key<Int>("n", default: 0)] = 1
        let visible = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
            .filter { !$0.hasPrefix(".\(name).plist.") }
        #expect(visible == [name + ".plist"])
        #expect(try directory.contents(ofSuite: name)["n"] as? Int == 1)
    }

    @Test("two Unicode spellings of a suite's name (NFC and NFD) are two suites, each in its own file")
    func nameSpellings() throws {
        let directory = TemporaryConfigDirectory()
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        try #require(composed == decomposed)
        let first = try FileStore.suite(composed, directory: directory.url)
        let second = try FileStore.suite(decomposed, directory: directory.url)
        #expect(first !== second)
        let key = Key<String>("k", default: "")
        for (store, value) in [(first, "composed"), (second, "decomposed")] {
            let adapter = DefaultsAdapter(store: store, keyStore: DefaultsKeys(), writePolicy: .immediate)
            adapter[key: key] = value
        }
        #expect(DefaultsAdapter(store: first, keyStore: DefaultsKeys())[key: key] == "composed")
        #expect(DefaultsAdapter(store: second, keyStore: DefaultsKeys())[key: key] == "decomposed")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
            .filter { !$0.hasPrefix(".") }
        #expect(
            Set(files.map { Array($0.utf8) }) == [Array("\(composed).plist".utf8), Array("\(decomposed).plist".utf8)]
        )
    }

    @Test("a directory must be an absolute file URL")
    func directories() throws {
        #expect(throws: DefaultsError.self) {
            try DefaultsAdapter(
                suiteName: "s",
                directory: URL(string: "https://example.com/")!,
                keyStore: DefaultsKeys()
            )
        }
        // `..` components are resolved before use, so the file lands where the path really points.
        let directory = TemporaryConfigDirectory()
        let roundabout = directory.url.appendingPathComponent("sub").appendingPathComponent("..")
        let defaults = try DefaultsAdapter(
            suiteName: "s",
            directory: roundabout,
            keyStore: DefaultsKeys(),
            launchArguments: .ignored,
            writePolicy: .immediate
        )
        defaults[key: Key<Bool>("b", default: false)] = true
        #expect(FileManager.default.fileExists(atPath: directory.plist("s").path))
    }

    @Test("the file is created 0600 in a directory created 0700, as Foundation does")
    func permissions() throws {
        let directory = TemporaryConfigDirectory()
        let nested = directory.url.appendingPathComponent("settings")
        let defaults = try DefaultsAdapter(
            suiteName: "s",
            directory: nested,
            keyStore: DefaultsKeys(),
            launchArguments: .ignored,
            writePolicy: .immediate
        )
        defaults[key: Key<Int>("n", default: 0)] = 1
        let file = try FileManager.default.attributesOfItem(atPath: nested.appendingPathComponent("s.plist").path)
        let folder = try FileManager.default.attributesOfItem(atPath: nested.path)
        #expect((file[.posixPermissions] as? Int) == 0o600)
        #expect((folder[.posixPermissions] as? Int) == 0o700)
    }
}
#endif
