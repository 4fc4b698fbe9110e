import Foundation

/// The command-line arguments that override settings for one run, such as `./tool -launchCount 3 -theme dark`.
///
/// An argument `-name value` overrides the key named `name` in every suite an adapter reads with these
/// arguments, typed by the key's bridge: `Bool` accepts `YES`/`NO`, `Y`/`N`, `true`/`false`, `T`/`F` and `1`/`0`
/// in any case (the spellings Foundation's `bool(forKey:)` and SwiftyUserDefaults read as that Boolean); numbers,
/// strings, URLs, dates and raw-value enums parse from text; other types accept property-list text such as
/// `(a,b)` or `{a=1;}`, or JSON. The rules are those of the `defaults` tool and of strings in a suite's file.
/// Negative numbers work (`-offset -3`), unlike Foundation's own argument domain. Overrides are never written
/// to disk.
///
/// An argument that does not parse as the key's type is ignored with a diagnostic. A write to an overridden
/// key is stored (it takes effect in runs without the argument) while reads keep returning the argument for
/// the rest of this run; a diagnostic says so.
///
/// ## Usage
/// ```swift
/// // A command-line tool whose own flags (`-o out.txt`) must not turn into settings:
/// let settings = try DefaultsAdapter(suiteName: "com.example.tool", keyStore: DefaultsKeys(), launchArguments: .ignored)
///
/// // Tests can pass arguments explicitly:
/// let defaults = DefaultsAdapter(store: InMemoryStore(), keyStore: DefaultsKeys(),
///                                launchArguments: .parsing(["-launchCount", "3"]))
/// ```
public struct LaunchArguments: Sendable {
    /// Override text by key name.
    @usableFromInline let values: [String: String]

    /// This process's own arguments (`ProcessInfo.processInfo.arguments`), parsed once.
    public static let process = parsing(Array(ProcessInfo.processInfo.arguments.dropFirst()))

    /// No overrides: the adapter reads only what is stored.
    public static let ignored = LaunchArguments(values: [:])

    /// Parses `-name value` pairs from `arguments` (without the program's name).
    ///
    /// A name starts with a single `-` and is not a number; its value is the next argument unless that one
    /// is itself a name. Arguments starting with `--` are left alone, as are values without a name.
    public static func parsing(_ arguments: [String]) -> LaunchArguments {
        var values: [String: String] = [:]
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            guard isName(argument) else { continue }
            guard index < arguments.endIndex, !isName(arguments[index]), !arguments[index].hasPrefix("--") else {
                continue
            }
            values[String(argument.dropFirst())] = arguments[index]
            index += 1
        }
        return LaunchArguments(values: values)
    }

    private static func isName(_ argument: String) -> Bool {
        argument.count > 1 && argument.hasPrefix("-") && !argument.hasPrefix("--") && Double(argument) == nil
    }

    /// The override for `key`, decoded by its bridge; `nil` if there is none or it does not parse.
    @inlinable
    func value<Value: DefaultsSerializable>(for key: Key<Value>, suite: () -> String) -> Value? {
        guard !values.isEmpty, let text = values[key.name] else { return nil }
        return parse(text, for: key, suite: suite())
    }

    @usableFromInline
    func parse<Value: DefaultsSerializable>(_ text: String, for key: Key<Value>, suite: String) -> Value? {
        // The same readings as the `defaults` tool and stored strings: property-list text, the string, JSON.
        if let value = PropertyListValue.firstReading(ofText: text, { try? Value.bridge.deserialize($0) }) {
            return value
        }
        DefaultsDiagnostics.report(
            DefaultsDiagnostic(
                kind: .invalidLaunchArgument,
                suite: suite,
                key: key.name,
                message: "the launch argument -\(key.name) \(String(reflecting: text)) is not a \(Value.self); "
                    + "ignoring it and reading the stored value or default"
            ),
            oncePerProcess: true
        )
        return nil
    }

    /// Reports that a write to `key` is shadowed by an override for the rest of the run.
    func reportWriteIfOverridden(_ keyName: String, suite: String) {
        guard let text = values[keyName] else { return }
        DefaultsDiagnostics.report(
            DefaultsDiagnostic(
                kind: .writeOverriddenByLaunchArgument,
                suite: suite,
                key: keyName,
                message: "\(String(reflecting: keyName)) was written and stored, but the launch argument "
                    + "-\(keyName) \(String(reflecting: text)) keeps overriding it for the rest of this run"
            ),
            oncePerProcess: true
        )
    }
}
