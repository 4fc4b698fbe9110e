import Foundation
import Testing

#if !TYPED_DEFAULTS_FOUNDATION_STORAGE  // needs the Linux file store; see FileStoreOnly.swift

/// The demo, run as the built executable the README tells a new user to try.
@Suite("demo")
struct DemoTests {
    @Test("the demo prints the files it writes, under HOME when XDG_CONFIG_HOME is unset")
    func printsThePathItWrites() throws {
        let home = TemporaryConfigDirectory()
        let process = Process()
        process.executableURL = Helper.product("typed-defaults-demo")
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = nil
        // A HOME other than the account's own, as in a container or a CI job: the demo must follow it.
        environment["HOME"] = home.url.path
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)

        let config = home.url.appendingPathComponent(".config").path
        let own = config + "/typed-defaults-demo.plist"
        let shared = config + "/dev.typeddefaults.demo.shared.plist"
        #expect(text.contains("Stored in \(own)\n"), "\(text)")
        #expect(text.contains("and \(shared)\n"), "\(text)")
        #expect(FileManager.default.fileExists(atPath: own))
        #expect(FileManager.default.fileExists(atPath: shared))
    }
}
#endif
