import Foundation
import Testing
import TypedDefaults
import TypedDefaultsTesting

/// Every check fails on a store with the flaw it is there to catch: the kit can fail.
@Suite("The kit catches broken stores")
struct BrokenStoreTests {
    /// A flaw, the check that must catch it, and words the failure must contain.
    struct Case: Sendable, CustomTestStringConvertible {
        let flaw: FlawedStore.Flaw
        let check: DefaultsStoreConformance.Check
        let message: String

        init(_ flaw: FlawedStore.Flaw, _ check: DefaultsStoreConformance.Check, _ message: String) {
            self.flaw = flaw
            self.check = check
            self.message = message
        }

        var testDescription: String { "\(flaw.rawValue) fails \"\(check.name)\"" }
    }

    static let cases: [Case] = [
        Case(.dropsNegativeZeroSign, .valuesRoundTrip, "conformance.raw.negativeZero was written as real -0.0"),
        Case(.normalizesStrings, .valuesRoundTrip, "conformance.string.decomposed was written as string \"é\""),
        Case(.appliesKeyByKey, .consistentSnapshots, "torn snapshots"),
        Case(.ignoresExpectations, .atomicBatches, "returned true; it must return false"),
        Case(.comparesWithEquality, .atomicBatches, "to hold 0.0 (it holds -0.0) returned true"),
        Case(.ignoresExpectations, .exactModify, "lost updates"),
        Case(.appliesKeyByKey, .exactModify, "lost updates"),
        Case(.announcesTwice, .changesReportedOnce, "announced more than once"),
        Case(.announcesNothing, .changesReportedOnce, "not announced"),
        Case(
            .forgetsOldValues,
            .changesReportedOnce,
            "not announced: \"conformance.changes.number\": integer 1 → integer 2"
        ),
        Case(.comparesWithEquality, .changesReportedOnce, "not announced: \"conformance.changes.real\""),
        Case(.hidesRemoveAll, .removeAllReportsEachKey, "not announced: \"conformance.removeAll."),
        Case(.announcesNothing, .removeAllReportsEachKey, "not announced"),
        Case(.flushKeepsRemovedKeys, .flushIsDurable, "was removed and flushed; the durable values still hold"),
        Case(.flushKeepsRemovedKeys, .flushIsDurable, "must make durable before returning"),
        Case(.deafToOtherProcesses, .externalChangesReported, "not announced: \"conformance.external.kept\""),
    ]

    @Test("each flaw fails its check", arguments: cases)
    func flawIsCaught(_ testCase: Case) async throws {
        let failures = try await testCase.check.failures(
            on: { FlawedStore(testCase.flaw) },
            durableValues: { $0.durableValues },
            writeAsAnotherProcess: { store, values in store.writeFromAnotherProcess(values) },
            patience: .milliseconds(500)
        )
        #expect(
            failures.contains { $0.message.contains(testCase.message) },
            "expected a failure containing \(String(reflecting: testCase.message)); got \(failures)"
        )
        #expect(failures.allSatisfy { $0.check == testCase.check.name && $0.store == testCase.flaw.rawValue })
    }

    @Test("every check has a flaw that fails it")
    func everyCheckCanFail() {
        let caught = Set(Self.cases.map(\.check))
        #expect(caught == Set(DefaultsStoreConformance.checks))
    }

    @Test("without a flaw, the same store passes every check")
    func flawlessStorePasses() async throws {
        try await DefaultsStoreConformance.run(
            on: { FlawedStore(nil) },
            durableValues: { $0.durableValues },
            writeAsAnotherProcess: { store, values in store.writeFromAnotherProcess(values) }
        )
    }

    @Test("run records each failure as an issue naming the store, the check and the value")
    func failuresAreRecordedAsIssues() async throws {
        try await withKnownIssue {
            try await DefaultsStoreConformance.Check.valuesRoundTrip.run(on: { FlawedStore(.dropsNegativeZeroSign) })
        } matching: { issue in
            issue.comments.contains { comment in
                comment.rawValue.hasPrefix("FlawedStore \"dropsNegativeZeroSign\" fails \"values round-trip\": ")
                    && comment.rawValue.contains("real -0.0 (bits 0x8000000000000000)")
            }
        }
    }

    @Test("one call runs every check and records what each finds")
    func runRecordsEveryCheck() async throws {
        let found = Guarded<Set<String>>([])
        try await withKnownIssue {
            try await DefaultsStoreConformance.run(on: { FlawedStore(.announcesNothing) }, patience: .milliseconds(300))
        } matching: { issue in
            for check in DefaultsStoreConformance.checks
            where issue.comments.contains(where: { $0.rawValue.contains("fails \"\(check.name)\"") }) {
                found.withLock { _ = $0.insert(check.name) }
            }
            return true
        }
        // A store that announces nothing fails both checks that listen, and only those.
        #expect(
            found.withLock { $0 } == [
                DefaultsStoreConformance.Check.changesReportedOnce.name,
                DefaultsStoreConformance.Check.removeAllReportsEachKey.name,
            ]
        )
    }
}

/// A value behind a lock, for collecting from closures that may run on any thread.
final class Guarded<Value>: @unchecked Sendable {
    // `value` is only read or written while holding `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
