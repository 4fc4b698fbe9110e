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

    /// Known issue: FileStore writes a raw `.date` in whole seconds but keeps its fraction in memory.
    ///
    /// A raw `.date` written through `Key<PropertyListValue?>` or `modifyStoredValues` reads 86400.25 in this
    /// process and 86400.0 in the next. Foundation's reader on Linux rejects a `<date>` with a fraction (the
    /// whole file would be lost), so the writer cannot keep it; the store could keep what the file keeps, or
    /// refuse such a date. Typed `Date` keys are not affected (`DateBridge` stores text).
    @Test("FileStore", arguments: DefaultsStoreConformance.checks)
    func fileStore(_ check: DefaultsStoreConformance.Check) async throws {
        try await withKnownIssue("FileStore writes raw dates in whole seconds but keeps the fraction in memory") {
            try await check.run(
                on: newFileStore,
                durableValues: fileStoreDurableValues,
                writeAsAnotherProcess: { store, values in
                    try writeAsAnotherProgram(values, to: try #require(store.fileURL))
                }
            )
        } when: {
            check == .flushIsDurable
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("conformance.raw.date was written as date 86400.25") }
        }
    }

    /// Known issue: UserDefaultsStore keeps neither a raw `-0.0` nor a raw date's fraction of a second.
    ///
    /// Foundation's XML writer on Linux writes a raw `.double(-0.0)` as `0.0` and a raw `.date` in whole
    /// seconds, and `synchronize()` reads the file back into memory when it changed, so the values
    /// change in this process too, at the next write. Everything that compares bit for bit follows: an
    /// expectation of `0.0` holds for a `-0.0` written earlier, and `-0.0` to `0.0` is no change. Typed
    /// `Double` and `Date` keys are not affected (their bridges store `-0.0` and dates as text). When the
    /// reload happens depends on Foundation, hence intermittent except on disk.
    @Test("UserDefaultsStore", arguments: DefaultsStoreConformance.checks)
    func userDefaultsStore(_ check: DefaultsStoreConformance.Check) async throws {
        try await withKnownIssue(
            "Foundation keeps neither raw -0.0 nor a raw date's fraction",
            isIntermittent: check != .flushIsDurable
        ) {
            try await check.run(on: newUserDefaultsStore, durableValues: userDefaultsDurableValues)
        } when: {
            [.valuesRoundTrip, .atomicBatches, .changesReportedOnce, .flushIsDurable].contains(check)
        } matching: { issue in
            issue.comments.contains { comment in
                ["-0.0", "conformance.batch.zero", "conformance.raw.date was written as date 86400.25"]
                    .contains { comment.rawValue.contains($0) }
            }
        }
    }

    @Test("one call runs every check")
    func everyCheckInOneCall() async throws {
        try await DefaultsStoreConformance.run(on: { DictionaryStore() })
    }
}
