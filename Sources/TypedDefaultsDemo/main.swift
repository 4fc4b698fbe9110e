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

print("TypedDefaults demo")
print("  launch count      \(Defaults.launchCount)")
print("  previous launch   \(previousLaunch.map { "\($0)" } ?? "none, this is the first run")")
print("  theme             \(Defaults.theme)")
print("  homepage          \(Defaults.homepage)")
if let profile = Defaults.profile {
    print("  profile           \(profile.name), joined \(profile.joined), tags \(profile.tags)")
}
print("  shared suite      launch count \(shared.launchCount) (+10 a run)")
// The files the library itself resolved (from XDG_CONFIG_HOME or HOME, as Foundation on Linux does), so the
// paths printed are the ones written; on Apple platforms the system keeps suites where it chooses.
print("Stored in \(Defaults.fileURL?.path ?? "UserDefaults.standard")")
print("      and \(shared.fileURL?.path ?? "the UserDefaults suite dev.typeddefaults.demo.shared")")
print("Run again to see the count go up; add `-theme dark` to override the theme for one run.")
