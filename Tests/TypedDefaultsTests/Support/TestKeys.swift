import Foundation
import TypedDefaults
import TypedDefaultsTestSupport

// The keys of the example, as a user declares them.
extension DefaultsKeys {
    var username: Key<String?> { .init("username") }
    var launchCount: Key<Int> { .init("launchCount", default: 0) }
    var volume: Key<Double> { .init("volume", default: 0.5) }
    var theme: Key<Theme> { .init("theme", default: .system) }
    var profile: Key<Profile?> { .init("profile") }
    var recentFiles: Key<[URL]> { .init("recentFiles", default: []) }
    var ratio: Key<Double?> { .init("ratio", default: 1.5) }
}

/// A plug-in's own key store: same key names, its own adapter.
struct PluginKeys: Sendable {
    var launchCount: Key<Int> { .init("launchCount", default: 100) }
}
