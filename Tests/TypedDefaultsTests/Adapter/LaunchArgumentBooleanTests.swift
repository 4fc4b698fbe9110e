import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// Launch arguments spell Booleans the ways Foundation's `bool(forKey:)` and SwiftyUserDefaults read them.
@Suite("Launch-argument Booleans")
struct LaunchArgumentBooleanTests {
    @Test(
        "YES/NO, Y/N, true/false, T/F and 1/0 in either case",
        arguments: [
            ("YES", true), ("yes", true), ("Y", true), ("y", true), ("true", true), ("TRUE", true), ("T", true),
            ("t", true), ("1", true), ("NO", false), ("no", false), ("N", false), ("n", false), ("false", false),
            ("False", false), ("F", false), ("f", false), ("0", false),
        ]
    )
    func spellings(text: String, expected: Bool) {
        let defaults = DefaultsAdapter(
            store: InMemoryStore(["flag": .bool(!expected)]),
            keyStore: DefaultsKeys(),
            launchArguments: .parsing(["-flag", text])
        )
        #expect(defaults[key: Key<Bool>("flag", default: !expected)] == expected)
    }

    @Test("text Foundation would also call a Boolean by its first letter or digit is refused, with a diagnostic")
    func refused() throws {
        let suite = IsolatedSuite()
        for text in ["tomato", "yep", "nope", "2", "42abc"] {
            let defaults = try suite.secondAdapter(
                keyStore: DefaultsKeys(),
                launchArguments: .parsing(["-flag", text])
            )
            #expect(defaults[key: Key<Bool>("flag", default: false)] == false, "\(text)")
        }
        #expect(suite.diagnostics.filter { $0.kind == .invalidLaunchArgument }.count == 5)
    }

    @Test("a real process reads -flag Y, -flag t and -flag N")
    func realProcess() throws {
        let directory = TemporaryConfigDirectory()
        for (text, expected) in [("Y", "true"), ("t", "true"), ("N", "false")] {
            let run = try Helper.run(["print-settings", "-flag", text], configDirectory: directory.url)
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.settings["flag"] == expected, "-flag \(text)")
            #expect(!run.errors.contains("-flag"), "no diagnostic for -flag \(text)")
        }
    }
}
