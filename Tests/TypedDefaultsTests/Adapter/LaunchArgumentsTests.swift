import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

@Suite("Launch arguments")
struct LaunchArgumentsTests {
    @Test("parses -name value pairs, negative numbers included")
    func parsing() {
        let arguments = LaunchArguments.parsing([
            "positional", "-count", "3", "-offset", "-3", "-ratio", "-0.5", "-flag", "YES", "--verbose", "x",
            "-lonely", "-name", "a b", "-last",
        ])
        #expect(
            arguments.values == ["count": "3", "offset": "-3", "ratio": "-0.5", "flag": "YES", "name": "a b"]
        )
    }

    @Test(
        "overrides are typed by the key's bridge",
        arguments: [
            ("YES", true), ("yes", true), ("true", true), ("1", true), ("NO", false), ("false", false), ("0", false),
        ]
    )
    func booleans(text: String, expected: Bool) {
        let store = InMemoryStore(["flag": .bool(!expected)])
        let defaults = DefaultsAdapter(
            store: store,
            keyStore: DefaultsKeys(),
            launchArguments: .parsing(["-flag", text])
        )
        #expect(defaults[key: Key<Bool>("flag", default: !expected)] == expected)
    }

    @Test("numbers, strings, URLs, enums and collections parse from text")
    func typedOverrides() {
        let defaults = DefaultsAdapter(
            store: InMemoryStore(),
            keyStore: DefaultsKeys(),
            launchArguments: .parsing([
                "-launchCount", "-3", "-volume", "0.25", "-username", "ann lee", "-theme", "dark",
                "-recentFiles", "(/tmp/a, \"https://x.y/z?q=1\")", "-priority", "2", "-site", "https://a.b/c?d=1#e",
                "-tags", "[\"x\",\"y\"]",
            ])
        )
        #expect(defaults.launchCount == -3)
        #expect(defaults.volume == 0.25)
        #expect(defaults.username == "ann lee")
        #expect(defaults.theme == .dark)
        #expect(defaults.recentFiles == [URL(fileURLWithPath: "/tmp/a"), URL(string: "https://x.y/z?q=1")!])
        #expect(defaults[key: Key<Priority?>("priority")] == .high)
        #expect(defaults[key: Key<URL?>("site")] == URL(string: "https://a.b/c?d=1#e")!)
        #expect(defaults[key: Key<[String]>("tags", default: [])] == ["x", "y"])
    }

    @Test("overrides are read by the text rules the defaults tool and stored strings follow")
    func sharedTextRules() throws {
        let suite = IsolatedSuite()
        let defaults = try suite.secondAdapter(
            keyStore: DefaultsKeys(),
            launchArguments: .parsing([
                "-any", "(a, b)", "-word", "(a, b)", "-number", "3", "-when", "2026-11-21 08:26:05 +0000",
                "-huge", "18446744073709551615", "-real", "3.0", "-quoted", "\"3\"", "-spaced", " 1", "-flag", " 1",
            ])
        )
        // Property-list text is a collection for a key of any type, as `defaults write` stores it.
        #expect(defaults[key: Key<PropertyListValue?>("any")] == .array([.string("a"), .string("b")]))
        #expect(defaults[key: Key<PropertyListValue?>("number")] == .string("3"))
        #expect(defaults[key: Key<String>("word", default: "")] == "(a, b)")
        #expect(defaults[key: Key<Date?>("when")] == PropertyListValue.date(fromText: "2026-11-21T08:26:05Z"))
        #expect(defaults[key: Key<UInt64>("huge", default: 0)] == .max)
        // A number or Boolean only from its own spelling, never from JSON or quotes: the default, and a diagnostic.
        #expect(defaults[key: Key<Int>("real", default: 7)] == 7)
        #expect(defaults[key: Key<Int>("quoted", default: 7)] == 7)
        #expect(defaults[key: Key<Int>("spaced", default: 7)] == 7)
        #expect(defaults[key: Key<Bool>("flag", default: false)] == false)
        let reported = Set(suite.diagnostics.filter { $0.kind == .invalidLaunchArgument }.compactMap(\.key))
        #expect(reported == ["real", "quoted", "spaced", "flag"])
    }

    @Test("an unparsable argument falls back to the stored value, with a diagnostic")
    func unparsable() throws {
        let suite = IsolatedSuite()
        suite.adapter.launchCount = 4
        let defaults = try suite.secondAdapter(
            keyStore: DefaultsKeys(),
            launchArguments: .parsing(["-launchCount", "many"])
        )
        #expect(defaults.launchCount == 4)
        #expect(defaults[key: Key<Int>("unset", default: 9)] == 9)
        let diagnostic = try #require(suite.diagnostics.first { $0.kind == .invalidLaunchArgument })
        #expect(diagnostic.key == "launchCount")
        #expect(diagnostic.message.contains("\"many\"") && diagnostic.message.contains("Int"))
    }

    @Test("a write to an overridden key is stored, the argument keeps winning, and a diagnostic says so")
    func writeWhileOverridden() throws {
        let suite = IsolatedSuite()
        let defaults = try suite.secondAdapter(
            keyStore: DefaultsKeys(),
            launchArguments: .parsing(["-launchCount", "3"])
        )
        defaults.launchCount = 99
        #expect(defaults.launchCount == 3)
        #expect(suite.adapter.launchCount == 99, "stored for runs without the argument")
        #expect(try suite.fileContents()["launchCount"] as? Int == 99)
        let diagnostic = try #require(suite.diagnostics.first { $0.kind == .writeOverriddenByLaunchArgument })
        #expect(diagnostic.message.contains("-launchCount"))
    }

    @Test("a real process: typed overrides, never written to disk")
    func realProcess() throws {
        let directory = TemporaryConfigDirectory()
        let run = try Helper.run(
            [
                "print-settings", "-count", "3", "-flag", "YES", "-theme", "dark", "-offset", "-3", "-ratio", "0.25",
                "-name", "Ann", "-site", "https://a.b/c?d=1#e", "-priority", "2", "-tags", "(x,y)",
            ],
            configDirectory: directory.url
        )
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.settings["count"] == "3")
        #expect(run.settings["flag"] == "true")
        #expect(run.settings["theme"] == "dark")
        #expect(run.settings["offset"] == "-3")
        #expect(run.settings["ratio"] == "0.25")
        #expect(run.settings["name"] == "Ann")
        #expect(run.settings["site"] == "https://a.b/c?d=1#e")
        #expect(run.settings["priority"] == "high")
        #expect(run.settings["tags"] == "x,y")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
            .filter { $0.hasSuffix(".plist") }
        #expect(files.isEmpty, "launch arguments are never written: \(files)")

        let next = try Helper.run(["print-settings"], configDirectory: directory.url)
        #expect(next.settings["count"] == "0")
        #expect(next.settings["theme"] == "system")
    }

    @Test("a real process: writing an overridden key stores it for the next run")
    func realProcessWrite() throws {
        let directory = TemporaryConfigDirectory()
        let run = try Helper.run(["write-count", "99", "-count", "3"], configDirectory: directory.url)
        #expect(run.settings["count"] == "3")
        #expect(run.errors.contains("keeps overriding"))
        let next = try Helper.run(["print-settings"], configDirectory: directory.url)
        #expect(next.settings["count"] == "99")
    }

    @Test("a real process: an unparsable argument is reported on standard error, not standard output")
    func realProcessUnparsable() throws {
        let directory = TemporaryConfigDirectory()
        let run = try Helper.run(
            ["print-settings", "-count", "lots", "-flag", "maybe"],
            configDirectory: directory.url
        )
        #expect(run.status == 0)
        #expect(run.settings["count"] == "0")
        #expect(run.settings["flag"] == "false")
        #expect(run.errors.contains("-count \"lots\""))
        #expect(run.errors.contains("-flag \"maybe\""))
        #expect(!run.output.contains("TypedDefaults"))
    }

    @Test("an adapter can ignore launch arguments, so a tool's own flags do not become settings")
    func optOut() throws {
        let directory = TemporaryConfigDirectory()
        let honoured = try Helper.run(
            ["print-settings", "-o", "out.txt", "-count", "3"],
            configDirectory: directory.url
        )
        #expect(honoured.settings["o"] == "out.txt")
        let ignored = try Helper.run(
            ["print-settings-ignoring", "-o", "out.txt", "-count", "3"],
            configDirectory: directory.url
        )
        #expect(ignored.settings["o"] == "")
        #expect(ignored.settings["count"] == "0", "Foundation's own argument domain does not leak through either")
    }
}
