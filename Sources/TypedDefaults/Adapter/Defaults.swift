import Foundation

/// The adapter over `UserDefaults.standard` with the keys of ``DefaultsKeys``.
///
/// `.standard`'s file on Linux is `~/.config/<program name>.plist` (or under `$XDG_CONFIG_HOME`).
///
/// ## Usage
/// ```swift
/// extension DefaultsKeys {
///     var launchCount: Key<Int> { .init("launchCount", default: 0) }
/// }
///
/// Defaults[\.launchCount] += 1
/// print(Defaults.launchCount)
/// ```
public let Defaults = DefaultsAdapter(defaults: .standard, keyStore: DefaultsKeys())
