import Foundation
import Testing

/// `Defaults` and `UserDefaults.standard` write the program's own file, so these run in child processes,
/// each with a config directory of its own.
@Suite("Standard defaults")
struct StandardDefaultsTests {
    @Test("a value written without any synchronize call survives a normal exit")
    func persistsAcrossRuns() throws {
        let directory = TemporaryConfigDirectory()
        for expected in 1...3 {
            let run = try Helper.run(["increment-standard"], configDirectory: directory.url)
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.output == "\(expected)\n")
        }
        // `.standard`'s domain on Linux is the executable's name.
        #expect(try directory.contents(ofSuite: "TypedDefaultsTestHelper")["launchCount"] as? Int == 3)
    }

    @Test("the documented API works end to end on .standard and a shared suite")
    func contract() throws {
        let directory = TemporaryConfigDirectory()
        let first = try Helper.run(["contract"], configDirectory: directory.url)
        #expect(first.status == 0, "\(first.errors)")
        #expect(first.settings["launchCount"] == "1")
        #expect(first.settings["volume"] == "\(0.5 - 0.1)")
        #expect(first.settings["recentFiles"] == "/tmp/notes.txt")
        #expect(first.settings["profile"] == "Ann")
        #expect(first.settings["standardFlag"] == "true")
        #expect(first.settings["shared"] == "10")
        #expect(first.settings["hasUsername"] == "true")
        #expect(first.settings["afterReset"] == "0")
        #expect(first.settings["afterRemoveAll"] == "false,false,0")
        #expect(first.errors.isEmpty)
        // The shared suite was not part of removeAll and keeps counting in the next process.
        let second = try Helper.run(["contract"], configDirectory: directory.url)
        #expect(second.settings["shared"] == "20")
        #expect(second.settings["launchCount"] == "1")
    }

    @Test("UserDefaults.standard[key] persists too")
    func standardSubscript() throws {
        let directory = TemporaryConfigDirectory()
        let first = try Helper.run(["standard-flag"], configDirectory: directory.url)
        #expect(first.settings["flag"] == "false")
        let second = try Helper.run(["standard-flag"], configDirectory: directory.url)
        #expect(second.settings["flag"] == "true")
    }

    @Test("values in .GlobalPreferences do not show through: a suite reads its own file only", .needsFileStore)
    func globalPreferencesShowThrough() throws {
        let directory = TemporaryConfigDirectory()
        let global = try PropertyListSerialization.data(
            fromPropertyList: ["globalKey": "from-global"],
            format: .xml,
            options: 0
        )
        try global.write(to: directory.plist(".GlobalPreferences"))

        let probe = try Helper.run(["probe-key", "app.suite", "globalKey"], configDirectory: directory.url)
        #expect(probe.settings["value"] == "nil")
        #expect(probe.settings["hasKey"] == "false")
    }
}
