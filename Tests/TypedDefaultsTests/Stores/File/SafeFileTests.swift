import Foundation
import Testing

#if !TYPED_DEFAULTS_FOUNDATION_STORAGE  // needs the Linux file store; see FileStoreOnly.swift

@testable import TypedDefaults

/// Files are created safely, and what is at a suite's path that is not a plain file is refused with a typed
/// error instead of being written through, hung on, or chmod-ed the way Foundation does.
@Suite("Safe files")
struct SafeFileTests {
    @Test("a symbolic link is read through, never written through")
    func symbolicLink() throws {
        let suite = IsolatedSuite()
        let target = suite.directory.url.appendingPathComponent("elsewhere.plist")
        try PropertyListSerialization.data(fromPropertyList: ["launchCount": 3], format: .xml, options: 0)
            .write(to: target)
        try FileManager.default.createSymbolicLink(at: suite.fileURL, withDestinationURL: target)
        let targetBefore = try Data(contentsOf: target)

        #expect(suite.adapter.launchCount == 3)
        let error = #expect(throws: DefaultsError.self) { try suite.adapter.set(4, for: \.launchCount) }
        guard case .unsafeFile(let path, let reason)? = error else {
            Issue.record("expected unsafeFile, got \(String(describing: error))")
            return
        }
        #expect(path == suite.fileURL.path)
        #expect(reason.contains("symbolic link"))
        #expect(try Data(contentsOf: target) == targetBefore, "the link's target is untouched")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: suite.fileURL.path) == target.path)
    }

    @Test("a FIFO or a directory at the suite's path is a typed error, not a hang")
    func notARegularFile() throws {
        for kind in ["FIFO", "directory"] {
            let suite = IsolatedSuite()
            if kind == "FIFO" {
                #expect(mkfifo(suite.fileURL.path, 0o600) == 0)
            } else {
                try FileManager.default.createDirectory(at: suite.fileURL, withIntermediateDirectories: false)
            }
            #expect(suite.adapter.launchCount == 0)
            #expect(throws: DefaultsError.self) { try suite.adapter.checkHealth() }
            let error = #expect(throws: DefaultsError.self) { try suite.adapter.set(1, for: \.launchCount) }
            guard case .unsafeFile(_, let reason)? = error else {
                Issue.record("\(kind): expected unsafeFile, got \(String(describing: error))")
                continue
            }
            #expect(reason.contains(kind == "FIFO" ? "FIFO" : "directory"))
            #expect(suite.diagnostics.contains { $0.kind == .unreadableFile })
        }
    }

    @Test("without XDG_CONFIG_HOME and HOME there is no config directory: a typed error, not /.config")
    func noConfigDirectory() throws {
        #expect(throws: DefaultsError.self) { try ConfigDirectory.resolve(environment: [:]) }
        #expect(throws: DefaultsError.self) { try ConfigDirectory.resolve(environment: ["HOME": "relative"]) }
        #expect(try ConfigDirectory.resolve(environment: ["HOME": "/home/ann"]) == "/home/ann/.config")
        #expect(
            try ConfigDirectory.resolve(environment: ["HOME": "/home/ann", "XDG_CONFIG_HOME": "rel/cfg"])
                == "/home/ann/.config",
            "a relative XDG_CONFIG_HOME is ignored, as Foundation does"
        )
        #expect(try ConfigDirectory.resolve(environment: ["XDG_CONFIG_HOME": "/cfg/"]) == "/cfg")
        #expect(try ConfigDirectory.resolve(environment: ["XDG_CONFIG_HOME": "/", "HOME": "/h"]) == "/h/.config")
    }

    @Test("a real process with neither XDG_CONFIG_HOME nor HOME writes nothing and says why")
    func noConfigDirectoryInAProcess() throws {
        let directory = TemporaryConfigDirectory()
        let run = try Helper.run(
            ["-u", "HOME", "-u", "XDG_CONFIG_HOME", Helper.tool.path, "write", "app.suite", "k", "v"],
            configDirectory: directory.url,
            program: URL(fileURLWithPath: "/usr/bin/env")
        )
        #expect(run.status == 4)
        #expect(run.errors.contains("no directory for suites"), "\(run.errors)")
        #expect(!FileManager.default.fileExists(atPath: "/.config/app.suite.plist"))
    }

    @Test("a suite created without a directory honours XDG_CONFIG_HOME in a real process")
    func honoursConfigHome() throws {
        let directory = TemporaryConfigDirectory()
        let run = try Helper.run(["exit-call", "app.suite", "k", "v"], configDirectory: directory.url)
        #expect(run.status == 0)
        #expect(try directory.contents(ofSuite: "app.suite")["k"] as? String == "v")
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.plist("app.suite").path)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
    }
}
#endif
