// The library's own file store is Linux's; on Apple platforms values live in UserDefaults (see Package.swift).
#if !TYPED_DEFAULTS_FOUNDATION_STORAGE
import Foundation

/// Where suites live when no directory is given: where Foundation keeps them on Linux.
package enum ConfigDirectory {
    /// The suite name of `.standard` on Linux: the bundle identifier, or else the executable's name (so a
    /// renamed binary starts from empty settings).
    package static let standardSuiteName = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName

    /// `$XDG_CONFIG_HOME` when it is an absolute path, else `$HOME/.config`, as Foundation resolves it.
    ///
    /// Foundation itself falls back to `/.config` when neither is set, which a root process would create;
    /// TypedDefaults refuses instead.
    package static func resolve(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(DefaultsError) -> String {
        // Foundation ignores a relative XDG_CONFIG_HOME, and "/" too.
        if let configHome = environment["XDG_CONFIG_HOME"], configHome.hasPrefix("/"),
            !trimmingTrailingSlash(configHome).isEmpty
        {
            return trimmingTrailingSlash(configHome)
        }
        if let home = environment["HOME"], home.hasPrefix("/") {
            return trimmingTrailingSlash(home) + "/.config"
        }
        throw .noConfigDirectory(
            reason: "neither XDG_CONFIG_HOME nor HOME is an absolute path; set one, or pass a directory"
        )
    }

    private static func trimmingTrailingSlash(_ path: String) -> String {
        var path = path
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path == "/" ? "" : path
    }
}
#endif
