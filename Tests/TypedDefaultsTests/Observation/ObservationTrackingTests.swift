import Dispatch
import Foundation
import Observation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// `@Default` and Swift's Observation framework, as SwiftUI uses it: a read inside `withObservationTracking`
/// is told of the key's next change, however it is made.
@Suite("Observation tracking")
struct ObservationTrackingTests {
    struct Settings: Sendable {
        @Default var theme: Theme
        @Default var cachedTheme: Theme
        @Default var volume: Double

        init(_ defaults: DefaultsAdapter<DefaultsKeys>) {
            _theme = Default(\.theme, adapter: defaults)
            _cachedTheme = Default(\.theme, adapter: defaults, options: [.cached])
            _volume = Default(\.volume, adapter: defaults)
        }
    }

    /// Tracks one read, and records each time its onChange closure runs, with the value read there.
    private static func track(_ read: @escaping @Sendable () -> Theme) -> Recorder<Theme> {
        let changes = Recorder<Theme>()
        _ = withObservationTracking {
            read()
        } onChange: {
            changes.append(read())
        }
        return changes
    }

    /// Tracks `read` again after each announcement, as SwiftUI does, recording the value read at each, until
    /// `count` are recorded (the tracking then ends, and with it what it keeps alive).
    private static func trackEach(_ count: Int, _ read: @escaping @Sendable () -> Theme) -> Recorder<Theme> {
        let changes = Recorder<Theme>()
        @Sendable func track() {
            _ = withObservationTracking {
                read()
            } onChange: {
                changes.append(read())
                if changes.count < count { track() }
            }
        }
        track()
        return changes
    }

    /// Expects that nothing was announced to `changes` before this call, however late: a tracker announces in
    /// order, one announcement at a time, so one made before runs before those of the two writes made here,
    /// and the record is then not exactly one value per write.
    ///
    /// The second write waits until the first's announcement is recorded, so the two are never announced as
    /// one. An announcement still waiting to start when the first write is made is announced with it, as any
    /// two changes close together are; callers let some time pass before, for one to start.
    private static func expectNothingAnnounced(
        before changes: Recorder<Theme>,
        writing first: Theme,
        then second: Theme,
        with write: (Theme) -> Void,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        write(first)
        #expect(eventually { changes.all.contains(first) }, sourceLocation: sourceLocation)
        write(second)
        #expect(eventually { changes.all.last == second }, sourceLocation: sourceLocation)
        #expect(changes.all == [first, second], "an earlier change was announced", sourceLocation: sourceLocation)
    }

    /// Lets some time pass for an onChange that must not come.
    private static func settle() { usleep(200_000) }

    @Test("a write through the wrapper ends the tracking of a read, cached or not; onChange reads the new value")
    func writeThroughWrapper() {
        let suite = IsolatedSuite()
        let settings = Settings(suite.adapter)
        let plain = Self.track { settings.theme }
        let cached = Self.track { settings.cachedTheme }
        settings.theme = .dark
        #expect(eventually { plain.all == [.dark] && cached.all == [.dark] })
        Self.settle()
        #expect(plain.count == 1, "onChange runs once per tracking")
    }

    @Test("a write through another adapter on the same suite, and modify, are announced; cached reads then see them")
    func otherAdapter() throws {
        let suite = IsolatedSuite()
        let settings = Settings(suite.adapter)
        let other = try suite.secondAdapter(keyStore: DefaultsKeys())
        suite.adapter.theme = .dark
        // Keeps `.dark`, which only the store's announcement to this adapter's tracker can drop.
        let cached = Self.track { settings.cachedTheme }
        other.theme = .light
        #expect(eventually { cached.all == [.light] })
        let plain = Self.track { settings.theme }
        let cachedAgain = Self.track { settings.cachedTheme }
        try suite.adapter.modify(\.theme) { $0 = .system }
        #expect(eventually { plain.all == [.system] && cachedAgain.all == [.system] })
    }

    @Test("another process's write is announced once the file watch notices it", .needsFileStore)
    func otherProcess() throws {
        let suite = IsolatedSuite()
        let settings = Settings(suite.adapter)
        let changes = Self.track { settings.theme }
        let run = try Helper.run(["exit-call", suite.name, "theme", "dark"], configDirectory: suite.directory.url)
        #expect(run.status == 0)
        #expect(eventually { changes.all == [.dark] })
    }

    /// An `@Observable` model holding settings beside its own state, as SwiftUI apps write one.
    @Observable
    final class PlayerModel {
        @ObservationIgnored @Default var theme: Theme
        var isPlaying = false

        init(_ defaults: DefaultsAdapter<DefaultsKeys>) {
            _theme = Default(\.theme, adapter: defaults)
        }
    }

    @Test(
        "an @Observable model's settings are tracked with its own state, other processes' changes included",
        .needsFileStore
    )
    func observableModel() throws {
        let suite = IsolatedSuite()
        let model = PlayerModel(suite.adapter)
        let reads = Recorder<String>()
        func track() {
            withObservationTracking {
                _ = (model.theme, model.isPlaying)
            } onChange: {
                reads.append("changed")
            }
        }
        track()
        model.isPlaying = true  // the macro's own property
        #expect(reads.count == 1)
        track()
        model.theme = .dark  // the setting, through the model
        #expect(eventually { reads.count == 2 })
        track()
        let run = try Helper.run(["exit-call", suite.name, "theme", "light"], configDirectory: suite.directory.url)
        #expect(run.status == 0)
        #expect(eventually { reads.count == 3 })
        #expect(model.theme == .light)
    }

    @Test("a change of another key is not announced to a read of this one")
    func otherKey() {
        let suite = IsolatedSuite()
        let settings = Settings(suite.adapter)
        let changes = Self.trackEach(2) { settings.theme }
        settings.volume = 0.9
        suite.adapter.launchCount = 4
        // Time for a wrong announcement to start, so that it is not folded into the next write's.
        Self.settle()
        // Still tracked: its own key's changes come through, and only they.
        Self.expectNothingAnnounced(before: changes, writing: .light, then: .dark) { settings.theme = $0 }
    }

    @Test("a write inside withoutPropagation is not announced, like to any observer; the next write is")
    func withoutPropagation() {
        let suite = IsolatedSuite()
        let settings = Settings(suite.adapter)
        let changes = Self.trackEach(2) { settings.theme }
        suite.adapter.withoutPropagation { settings.theme = .dark }
        #expect(settings.theme == .dark)
        // Time for a wrong announcement to start, so that it is not folded into the next write's.
        Self.settle()
        Self.expectNothingAnnounced(before: changes, writing: .light, then: .system) { settings.theme = $0 }
    }

    @Test("onChange runs outside every lock: it can read and write the same suite, the tracked key included")
    func noLockHeld() {
        let suite = IsolatedSuite()
        let settings = Settings(suite.adapter)
        let done = DispatchSemaphore(value: 0)
        let finished = finishes(within: 20) {
            _ = withObservationTracking {
                settings.theme
            } onChange: {
                _ = settings.cachedTheme
                settings.volume = 0.1
                settings.theme = .light
                // Tracking again from inside onChange, as SwiftUI does when it re-renders.
                _ = withObservationTracking {
                    settings.theme
                } onChange: {
                }
                done.signal()
            }
            settings.theme = .dark
            done.wait()
        }
        #expect(finished)
        #expect(suite.adapter.volume == 0.1)
        #expect(suite.adapter.theme == .light)
    }

    @Test("properties of one key share one listener, which goes when the last of them does")
    func trackerLifetime() {
        let suite = IsolatedSuite()
        let changes = suite.adapter.store.changes
        do {
            let first = Default(\.theme, adapter: suite.adapter)
            let second = Default(\.theme, adapter: suite.adapter, options: [.cached])
            withExtendedLifetime((first, second)) {
                #expect(changes.observerCount == 1)
                #expect(first.tracker === second.tracker)
            }
        }
        #expect(eventually { changes.observerCount == 0 })
    }
}
