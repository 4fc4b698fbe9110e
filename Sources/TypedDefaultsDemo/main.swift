// A tour of TypedDefaults: run it a few times and watch the settings persist.
//
//     swift run typed-defaults-demo
//     swift run typed-defaults-demo -theme dark     # a launch argument overrides a setting for one run

import Foundation
import TypedDefaults

enum Theme: String, Codable { case light, dark, system }

struct Profile: Codable, Equatable {
    var name: String
    var tags: [String]
    var joined: Date
}

extension Theme: DefaultsSerializable {}
extension Profile: DefaultsSerializable {}

extension DefaultsKeys {
    var launchCount: Key<Int> { .init("launchCount", default: 0) }
    var lastLaunch: Key<Date?> { .init("lastLaunch") }
    var theme: Key<Theme> { .init("theme", default: .system) }
    var profile: Key<Profile?> { .init("profile") }
    var homepage: Key<URL> { .init("homepage", default: URL(string: "https://swift.org/?ref=demo#top")!) }
}

// The app's own settings live in `.standard`: ~/.config/typed-defaults-demo.plist.
Defaults[\.launchCount] += 1
let previousLaunch = Defaults.lastLaunch
Defaults.lastLaunch = Date()

if Defaults.profile == nil {
    Defaults.profile = Profile(name: "Ada", tags: ["first run"], joined: Date())
}
Defaults.profile?.tags = Array((Defaults.profile?.tags ?? []).suffix(2)) + ["run \(Defaults.launchCount)"]

// A suite shared with other programs: ~/.config/dev.typeddefaults.demo.shared.plist.
let shared = try DefaultsAdapter(suiteName: "dev.typeddefaults.demo.shared", keyStore: DefaultsKeys())
shared.launchCount += 10

let configDirectory =
    ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
    ?? (NSHomeDirectory() + "/.config")

print("TypedDefaults demo")
print("  launch count      \(Defaults.launchCount)")
print("  previous launch   \(previousLaunch.map { "\($0)" } ?? "none, this is the first run")")
print("  theme             \(Defaults.theme)")
print("  homepage          \(Defaults.homepage)")
if let profile = Defaults.profile {
    print("  profile           \(profile.name), joined \(profile.joined), tags \(profile.tags)")
}
print("  shared suite      launch count \(shared.launchCount) (+10 a run)")
print("Stored in \(configDirectory)/\(ProcessInfo.processInfo.processName).plist")
print("      and \(configDirectory)/dev.typeddefaults.demo.shared.plist")
print("Run again to see the count go up; add `-theme dark` to override the theme for one run.")
