import Foundation
import Testing
import TypedDefaults
import TypedDefaultsTesting

/// Every store the package ships, and one written here on the public API, passes the conformance kit, but
/// for the limits of Foundation's property-list format recorded below as known issues.
@Suite("Stores conform")
struct BuiltInStoreTests {
    @Test("a store written outside the package", arguments: DefaultsStoreConformance.checks)
    func dictionaryStore(_ check: DefaultsStoreConformance.Check) async throws {
        try await check.run(on: { DictionaryStore() })
    }

    @Test("InMemoryStore", arguments: DefaultsStoreConformance.checks)
    func inMemoryStore(_ check: DefaultsStoreConformance.Check) async throws {
        try await check.run(on: { InMemoryStore() })
    }

    @Test("FaultyStore without faults", arguments: DefaultsStoreConformance.checks)
    func faultyStore(_ check: DefaultsStoreConformance.Check) async throws {
        try await check.run(
            on: { FaultyStore() },
            durableValues: { $0.durableValues },
            writeAsAnotherProcess: { store, values in store.simulateExternalChange(values) }
        )
    }

    #if !TYPED_DEFAULTS_FOUNDATION_STORAGE
    /// A raw `.date` with a fraction of a second is refused (a property-list `<date>` keeps whole seconds),
    /// so what the store keeps in memory is what its file keeps.
    @Test("FileStore", arguments: DefaultsStoreConformance.checks)
    func fileStore(_ check: DefaultsStoreConformance.Check) async throws {
        try await check.run(
            on: newFileStore,
            durableValues: fileStoreDurableValues,
            writeAsAnotherProcess: { store, values in
                try writeAsAnotherProgram(values, to: try #require(store.fileURL))
            }
        )
    }
    #endif

    /// Known issue: UserDefaultsStore does not keep a raw `-0.0`.
    ///
    /// Foundation's XML writer on Linux writes a raw `.double(-0.0)` as `0.0`, and `synchronize()` reads the
    /// file back into memory when it changed, so the value changes in this process too, at the next write. Everything that compares bit for bit follows: an
    /// expectation of `0.0` holds for a `-0.0` written earlier, and `-0.0` to `0.0` is no change. Typed
    /// `Double` and `Date` keys are not affected (their bridges store `-0.0` and dates as text). When the
    /// reload happens depends on Foundation, hence intermittent except on disk.
    @Test("UserDefaultsStore", arguments: DefaultsStoreConformance.checks)
    func userDefaultsStore(_ check: DefaultsStoreConformance.Check) async throws {
        try await withKnownIssue(
            "Foundation does not keep a raw -0.0",
            isIntermittent: check != .flushIsDurable
        ) {
            try await check.run(on: newUserDefaultsStore, durableValues: userDefaultsDurableValues)
        } when: {
            [.valuesRoundTrip, .atomicBatches, .changesReportedOnce, .flushIsDurable].contains(check)
        } matching: { issue in
            issue.comments.contains { comment in
                ["-0.0", "conformance.batch.zero"]
                    .contains { comment.rawValue.contains($0) }
            }
        }
    }

    @Test("one call runs every check")
    func everyCheckInOneCall() async throws {
        try await DefaultsStoreConformance.run(on: { DictionaryStore() })
    }
}
