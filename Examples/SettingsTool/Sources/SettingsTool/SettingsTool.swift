// A command-line tool that keeps its settings in a suite of typed keys.
//
//     swift run settings-tool set theme dark
//     swift run settings-tool get theme
//     swift run settings-tool list
//     swift run settings-tool reset theme
//
// The commands reach the keys through key paths, as `Defaults[\.theme]` does; code that knows the key at compile
// time writes `settings.theme = .dark`, as with `Defaults`.

import ArgumentParser
import Foundation
import TypedDefaults

// MARK: - The settings

enum Theme: String, CaseIterable, DefaultsSerializable {
    case light, dark, system
}

/// A `Codable` value: stored as one line of JSON, such as `{"host":"localhost","port":8080}`.
struct Server: Codable, DefaultsSerializable {
    var host: String
    var port: Int
}

extension DefaultsKeys {
    var theme: Key<Theme> { .init("theme", default: .system) }
    var fontSize: Key<Int> { .init("fontSize", default: 12) }
    var volume: Key<Double> { .init("volume", default: 0.5) }
    var server: Key<Server> { .init("server", default: Server(host: "localhost", port: 8080)) }
}

typealias Settings = DefaultsAdapter<DefaultsKeys>

/// The settings the commands accept by name; ArgumentParser rejects other names, and lists these.
enum SettingName: String, CaseIterable, ExpressibleByArgument {
    case theme, fontSize, volume, server

    /// The typed key behind the name, with how to turn text into its value and its value into text.
    var setting: Setting {
        switch self {
        case .theme: Setting(\.theme, "light, dark or system", parse: Theme.init(rawValue:))
        case .fontSize: Setting(\.fontSize, "an integer from 6 to 72") { number($0, in: 6...72) }
        case .volume: Setting(\.volume, "a number from 0 to 1") { number($0, in: 0...1) }
        case .server: Setting(\.server, #"JSON: {"host":"example.com","port":443}"#, show: \.json, parse: Server.init)
        }
    }
}

/// One typed key, seen through text: the commands take and print strings, the suite stores typed values.
struct Setting {
    let show: (Settings) -> String
    let store: (Settings, String) throws -> Void
    let reset: (Settings) -> Void
    let isStored: (Settings) -> Bool

    init<Value>(
        _ keyPath: KeyPath<DefaultsKeys, Key<Value>>,
        _ expected: String,
        show: @escaping (Value) -> String = { "\($0)" },
        parse: @escaping (String) -> Value?
    ) {
        self.show = { settings in show(settings[keyPath]) }
        self.store = { settings, text in
            // The tool checks what the type cannot express (ranges, spelling); the library refuses values that
            // have no stored form, such as a string with a control character, with a DefaultsError.
            guard let value = parse(text) else {
                throw InvalidValue(
                    description: "\(String(reflecting: text)) is not a valid value: expected \(expected)"
                )
            }
            try settings.set(value, for: keyPath)
        }
        self.reset = { settings in settings.reset(keyPath) }
        self.isStored = { settings in settings.hasKey(keyPath) }
    }
}

/// A value that does not parse (a `ValidationError` thrown from `run()` would print the wrong usage line).
struct InvalidValue: Error, CustomStringConvertible {
    let description: String
}

extension Server {
    init?(_ json: String) {
        guard let server = try? JSONDecoder().decode(Server.self, from: Data(json.utf8)) else { return nil }
        self = server
    }

    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "\(self)"
    }
}

/// The number `text` spells, if it lies in `range`.
func number<Number: LosslessStringConvertible & Comparable>(_ text: String, in range: ClosedRange<Number>) -> Number? {
    Number(text).flatMap { range.contains($0) ? $0 : nil }
}

// MARK: - The commands

@main
struct SettingsTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings-tool",
        abstract: "Reads and changes the settings of a suite, with typed keys.",
        subcommands: [Get.self, Set.self, Reset.self, List.self]
    )
}

/// The options every command takes: which suite, in which directory.
struct SuiteOptions: ParsableArguments {
    @Option(help: "The suite's name; its file is <directory>/<suite>.plist.")
    var suite = "com.example.settings-tool"

    @Option(help: "The suite file's directory (default: $XDG_CONFIG_HOME, else ~/.config); not on Apple platforms.")
    var directory: String?

    func validate() throws {
        #if canImport(Darwin)
        // On Apple platforms the suite lives in UserDefaults, which picks its own place for it.
        if directory != nil { throw ValidationError("--directory is for Linux; here suites live in UserDefaults") }
        #endif
    }

    func open() throws -> Settings {
        // `.ignored`: this tool's own arguments (`set volume 0.8`) must not be read as `-key value` overrides.
        #if canImport(Darwin)
        return try DefaultsAdapter(suiteName: suite, keyStore: DefaultsKeys(), launchArguments: .ignored)
        #else
        return try DefaultsAdapter(
            suiteName: suite,
            directory: directory.map { URL(fileURLWithPath: $0, isDirectory: true) },
            keyStore: DefaultsKeys(),
            launchArguments: .ignored
        )
        #endif
    }
}

extension SettingsTool {
    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Prints a setting's value.")
        @OptionGroup var options: SuiteOptions
        @Argument var key: SettingName

        func run() throws {
            print(key.setting.show(try options.open()))
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Changes a setting.")
        @OptionGroup var options: SuiteOptions
        @Argument var key: SettingName
        @Argument(help: "The new value.") var value: String

        func run() throws {
            let settings = try options.open()
            try key.setting.store(settings, value)
            // Writes are coalesced and would reach the disk at exit anyway; flushing here is what turns a write
            // that fails (a full disk, a read-only directory) into an error and a non-zero exit status.
            try settings.flush()
            print("\(key) = \(key.setting.show(settings))")
        }
    }

    struct Reset: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Removes a setting, so it reads its default again.")
        @OptionGroup var options: SuiteOptions
        @Argument var key: SettingName

        func run() throws {
            let settings = try options.open()
            key.setting.reset(settings)
            try settings.flush()  // `reset` cannot throw: a failed write surfaces here
            print("\(key) = \(key.setting.show(settings)) (default)")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Prints every setting, and where it is stored.")
        @OptionGroup var options: SuiteOptions

        func run() throws {
            let settings = try options.open()
            for name in SettingName.allCases {
                let column = name.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)
                let origin = name.setting.isStored(settings) ? "" : "  (default)"
                print("\(column)\(name.setting.show(settings))\(origin)")
            }
            print("stored in \(settings.fileURL?.path ?? "memory")")
        }
    }
}
