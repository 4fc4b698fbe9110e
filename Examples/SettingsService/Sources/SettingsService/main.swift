// A long-running service whose settings can be changed while it runs, by any program that writes its suite.
//
//     swift run settings-service
//     swift run defaults write com.example.settings-service pollInterval -float 0.5    # from the repository root
//     swift run defaults write com.example.settings-service logLevel debug
//
// It stops gracefully on SIGTERM or SIGINT (Ctrl-C), and saves its settings before it exits.

import Foundation
import Logging
import ServiceLifecycle
import TypedDefaults

// A String enum of swift-log's: stored as its raw value, so `defaults write ... logLevel debug` spells it.
extension Logger.Level: @retroactive DefaultsSerializable {}

/// The service's keys, in a key store of its own rather than `DefaultsKeys`, which every module extends.
struct ServiceKeys: Sendable {
    /// Seconds between polls; a value outside 0.1...3600 is reported and the default used instead.
    var pollInterval: Key<Double> { .init("pollInterval", default: 2) }
    var logLevel: Key<Logger.Level> { .init("logLevel", default: .info) }
    /// Polls made, over every run: written at each poll, so the last ones are saved at shutdown.
    var polls: Key<Int> { .init("polls", default: 0) }
    var lastStop: Key<Date?> { .init("lastStop") }
}

typealias Settings = DefaultsAdapter<ServiceKeys>

/// The service's work: it polls at the interval its settings give, and logs at the level they give.
struct Poller: Service {
    let settings: Settings
    let logger: Logger

    func run() async {
        // `observe` calls back on a queue of its own for every change, whoever makes it: this process, or
        // `defaults write` in another one (seen through a watch on the suite's file, within milliseconds).
        let observation = settings.observe(\.logLevel) { change in
            logger.notice("logLevel changed from \(change.oldValue) to \(change.newValue)")
        }
        defer { observation.invalidate() }

        // `updates` yields the current interval, then each new one. Each restarts the polling, so a shorter
        // interval applies at once rather than after the old, longer wait. The loop ends at graceful shutdown.
        var polling: Task<Void, Never>?
        for await interval in settings.updates(\.pollInterval).cancelOnGracefulShutdown() {
            polling?.cancel()
            await polling?.value  // one poller at a time, so `polls` counts each poll once
            polling = Task { await poll(every: interval) }
        }
        polling?.cancel()
        await polling?.value
    }

    private func poll(every interval: Double) async {
        let fallback = settings.keyStore.pollInterval.defaultValue
        let seconds = (0.1...3600).contains(interval) ? interval : fallback  // NaN lands here too
        if seconds != interval {
            logger.warning("pollInterval \(interval) is outside 0.1...3600 seconds; using \(fallback)")
        }
        logger.notice("polling every \(seconds) s")
        while !Task.isCancelled {
            var logger = logger
            // Reading a setting is an in-memory lookup: read it where it is used, and it is never stale.
            logger.logLevel = settings.logLevel
            // Writes are coalesced: at most one file write per 100 ms, however often the service polls.
            settings.polls += 1
            logger.info("poll \(settings.polls)")
            logger.debug("next poll in \(seconds) s")
            try? await Task.sleep(for: .seconds(seconds))
        }
    }
}

/// Makes the settings durable at shutdown.
///
/// Listed first, so the group, which shuts services down in reverse order, stops it last: after the other
/// services made their last writes.
struct SettingsSaver: Service {
    let settings: Settings
    let logger: Logger

    func run() async throws {
        // Suspends until SIGTERM or SIGINT starts the graceful shutdown (or the group is cancelled).
        try? await gracefulShutdown()
        settings.lastStop = Date()
        do {
            // Each write is already in its suite's journal; this call rebuilds every open suite's file from it,
            // synced to the disk, and throws if one fails.
            try await DefaultsShutdown.flushAll()
            logger.notice("settings saved: \(settings.polls) polls in all, in \(settings.fileURL?.path ?? "?")")
        } catch {
            logger.error("settings not saved: \(error)")
            throw error  // the group ends with the error, and the program with a non-zero status
        }
    }
}

let logger = Logger(label: "settings-service")
// With no `directory`, the suite is $XDG_CONFIG_HOME/com.example.settings-service.plist (else ~/.config/...),
// where the `defaults` tool finds it by name. Launch arguments such as `-pollInterval 1` are ignored: reads would
// return them, but `updates` and `observe` report stored values only, and the two would disagree.
let settings = try DefaultsAdapter(
    suiteName: "com.example.settings-service",
    keyStore: ServiceKeys(),
    launchArguments: .ignored
)
logger.notice("started, pid \(ProcessInfo.processInfo.processIdentifier); settings in \(settings.fileURL?.path ?? "?")")

let group = ServiceGroup(
    services: [SettingsSaver(settings: settings, logger: logger), Poller(settings: settings, logger: logger)],
    gracefulShutdownSignals: [.sigterm, .sigint],
    logger: logger
)
try await group.run()
logger.notice("stopped")
