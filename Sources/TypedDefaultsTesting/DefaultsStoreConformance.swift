import Foundation
import Testing
import TypedDefaults

/// Checks that a ``DefaultsStore`` keeps the promises ``DefaultsAdapter`` relies on.
///
/// Every check gets a fresh store from the closure you pass, drives it the way adapters do (through
/// `DefaultsAdapter` where it can, concurrently where it matters), and records a Swift Testing issue for
/// each broken promise, naming the store and what broke. The whole kit takes well under a few seconds for
/// an in-memory or file store.
///
/// Tell the kit what your store is with two optional closures: `durableValues` reads what the store has
/// made durable (leave it out for a store that only keeps values in memory), and `writeAsAnotherProcess`
/// changes the store's values the way another process would (leave it out for a store that is not shared).
/// The checks that need them are skipped without them; nothing else is.
///
/// ## Usage
/// Run every check in one test:
/// ```swift
/// import Testing
/// import TypedDefaults
/// import TypedDefaultsTesting
///
/// @Test func myStoreConforms() async throws {
///     try await DefaultsStoreConformance.run(on: { MyStore() })
/// }
/// ```
///
/// Or one test per check, so a failure names its check and the checks run in parallel:
/// ```swift
/// @Test(arguments: DefaultsStoreConformance.checks)
/// func myStoreConforms(_ check: DefaultsStoreConformance.Check) async throws {
///     try await check.run(on: { MyStore() })
/// }
/// ```
public enum DefaultsStoreConformance {
    /// Every check, in the order ``run(on:durableValues:writeAsAnotherProcess:patience:sourceLocation:)``
    /// runs them.
    ///
    /// ```swift
    /// @Test(arguments: DefaultsStoreConformance.checks)
    /// func conforms(_ check: DefaultsStoreConformance.Check) async throws {
    ///     try await check.run(on: { MyStore() })
    /// }
    /// ```
    public static let checks: [Check] = [
        .valuesRoundTrip, .consistentSnapshots, .atomicBatches, .exactModify, .changesReportedOnce,
        .removeAllReportsEachKey, .flushIsDurable, .externalChangesReported,
    ]

    /// Runs every check on fresh stores from `makeStore`, recording an issue for each failure.
    ///
    /// `makeStore` is called once per check and must return an empty store of its own each time. Throws only
    /// what `makeStore` throws; failures are recorded as issues, so one run reports all of them.
    ///
    /// - Parameters:
    ///   - makeStore: Makes a new, empty store.
    ///   - durableValues: Reads what `store` has made durable, as a new process would find it; `nil` for a
    ///     store that keeps values in memory only.
    ///   - writeAsAnotherProcess: Stores `values` in `store`'s backing the way another process would, without
    ///     going through `store`; `nil` for a store that is not shared with other processes.
    ///   - patience: How long a check waits for something asynchronous (an announcement, another process's
    ///     change) before it calls it missing.
    ///
    /// ```swift
    /// try await DefaultsStoreConformance.run(
    ///     on: { try FileStore.suite(UUID().uuidString, directory: temporaryDirectory) },
    ///     durableValues: { store in try readPropertyList(at: store.fileURL!) }
    /// )
    /// ```
    public static func run<Store: DefaultsStore>(
        on makeStore: () throws -> Store,
        durableValues: (@Sendable (Store) throws -> [String: PropertyListValue])? = nil,
        writeAsAnotherProcess: (@Sendable (Store, [String: PropertyListValue]) throws -> Void)? = nil,
        patience: Duration = .seconds(5),
        isolation: isolated (any Actor)? = #isolation,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        for check in checks {
            try await check.run(
                on: makeStore,
                durableValues: durableValues,
                writeAsAnotherProcess: writeAsAnotherProcess,
                patience: patience,
                sourceLocation: sourceLocation
            )
        }
    }

    /// What every check found wrong with stores from `makeStore`, without recording issues: for reporting
    /// failures your own way, or for testing a store that is meant to fail (warnings included: see
    /// ``Failure/isWarning``).
    ///
    /// ```swift
    /// let failures = try await DefaultsStoreConformance.failures(on: { MyStore() })
    /// #expect(failures.isEmpty, "\(failures)")
    /// ```
    public static func failures<Store: DefaultsStore>(
        on makeStore: () throws -> Store,
        durableValues: (@Sendable (Store) throws -> [String: PropertyListValue])? = nil,
        writeAsAnotherProcess: (@Sendable (Store, [String: PropertyListValue]) throws -> Void)? = nil,
        patience: Duration = .seconds(5),
        isolation: isolated (any Actor)? = #isolation
    ) async throws -> [Failure] {
        var failures: [Failure] = []
        for check in checks {
            failures += try await check.failures(
                on: makeStore,
                durableValues: durableValues,
                writeAsAnotherProcess: writeAsAnotherProcess,
                patience: patience
            )
        }
        return failures
    }
}

extension DefaultsStoreConformance {
    /// One promise of the ``DefaultsStore`` contract, and how to test a store for it.
    ///
    /// ```swift
    /// try await DefaultsStoreConformance.Check.exactModify.run(on: { MyStore() })
    /// ```
    public struct Check: Sendable, Hashable, CustomStringConvertible, CustomTestStringConvertible {
        /// A short name, such as `"exact modify"`.
        public let name: String
        /// The promise the check tests, in a sentence.
        public let promise: String
        let body: @Sendable (Subject) async -> Void

        init(_ name: String, promise: String, body: @escaping @Sendable (Subject) async -> Void) {
            self.name = name
            self.promise = promise
            self.body = body
        }

        /// The check's name.
        public var description: String { name }

        /// The check's name, as Swift Testing shows a test argument.
        public var testDescription: String { name }

        /// Checks are the same when their names are.
        public static func == (lhs: Check, rhs: Check) -> Bool { lhs.name == rhs.name }

        /// Hashes the check's name.
        public func hash(into hasher: inout Hasher) { hasher.combine(name) }

        /// Runs the check on a fresh store from `makeStore`, recording an issue for each failure.
        ///
        /// Throws only what `makeStore` throws. See
        /// ``DefaultsStoreConformance/run(on:durableValues:writeAsAnotherProcess:patience:sourceLocation:)``
        /// for the parameters.
        ///
        /// ```swift
        /// @Test(arguments: DefaultsStoreConformance.checks)
        /// func conforms(_ check: DefaultsStoreConformance.Check) async throws {
        ///     try await check.run(on: { MyStore() })
        /// }
        /// ```
        public func run<Store: DefaultsStore>(
            on makeStore: () throws -> Store,
            durableValues: (@Sendable (Store) throws -> [String: PropertyListValue])? = nil,
            writeAsAnotherProcess: (@Sendable (Store, [String: PropertyListValue]) throws -> Void)? = nil,
            patience: Duration = .seconds(5),
            isolation: isolated (any Actor)? = #isolation,
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws {
            let failures = try await failures(
                on: makeStore,
                durableValues: durableValues,
                writeAsAnotherProcess: writeAsAnotherProcess,
                patience: patience
            )
            for failure in failures {
                Issue.record(
                    Comment(rawValue: failure.description),
                    severity: failure.isWarning ? .warning : .error,
                    sourceLocation: sourceLocation
                )
            }
        }

        /// What the check found wrong with a fresh store from `makeStore`, without recording issues.
        ///
        /// ```swift
        /// let failures = try await DefaultsStoreConformance.Check.atomicBatches.failures(on: { MyStore() })
        /// ```
        public func failures<Store: DefaultsStore>(
            on makeStore: () throws -> Store,
            durableValues: (@Sendable (Store) throws -> [String: PropertyListValue])? = nil,
            writeAsAnotherProcess: (@Sendable (Store, [String: PropertyListValue]) throws -> Void)? = nil,
            patience: Duration = .seconds(5),
            isolation: isolated (any Actor)? = #isolation
        ) async throws -> [Failure] {
            let store = try makeStore()
            let subject = Subject(
                store: store,
                durableValues: durableValues.map { read in { @Sendable in try read(store) } },
                writeAsAnotherProcess: writeAsAnotherProcess.map { write in { @Sendable in try write(store, $0) } },
                patience: patience
            )
            await body(subject)
            // Writes a check left pending would otherwise reach the store's backing after the test has
            // cleaned it up.
            try? store.flush()
            let entries = subject.log.all
            let shown = entries.prefix(Self.maximumFailures)
            var failures = shown.map {
                Failure(
                    check: name,
                    store: store.name,
                    storeType: "\(Store.self)",
                    message: $0.message,
                    isWarning: $0.isWarning
                )
            }
            if entries.count > shown.count {
                failures.append(
                    Failure(
                        check: name,
                        store: store.name,
                        storeType: "\(Store.self)",
                        message: "and \(entries.count - shown.count) more failures like these",
                        isWarning: false
                    )
                )
            }
            return failures
        }

        /// The most failures one check reports, so that a store broken everywhere does not flood the log.
        static let maximumFailures = 12
    }

    /// Something a store did that the contract does not allow, found by a ``Check``.
    ///
    /// ```swift
    /// for failure in try await DefaultsStoreConformance.failures(on: { MyStore() }) {
    ///     print(failure)   // MyStore "mine" fails "atomic batches": a batch expecting ... applied anyway
    /// }
    /// ```
    public struct Failure: Sendable, Hashable, CustomStringConvertible {
        /// The name of the check that failed.
        public let check: String
        /// The store's ``DefaultsStore/name``.
        public let store: String
        /// The store's type, such as `"FileStore"`.
        public let storeType: String
        /// What went wrong, with the values involved.
        public let message: String
        /// Whether this is only worth knowing, not a broken promise: it is recorded as a warning, which does
        /// not fail the test.
        public let isWarning: Bool

        /// `FileStore "com.example" fails "values round-trip": …`, or `… warns in "exact modify": …`.
        public var description: String {
            "\(storeType) \(String(reflecting: store)) \(isWarning ? "warns in" : "fails") \"\(check)\": \(message)"
        }
    }

    /// A store under test, with what its test says about it and where failures go.
    struct Subject: Sendable {
        let store: any DefaultsStore
        let durableValues: (@Sendable () throws -> [String: PropertyListValue])?
        let writeAsAnotherProcess: (@Sendable ([String: PropertyListValue]) throws -> Void)?
        let patience: Duration
        let log = FailureLog()

        func fail(_ message: String) { log.record(message, isWarning: false) }

        func warn(_ message: String) { log.record(message, isWarning: true) }

        /// A new adapter over the store: each has its own decoded-value cache, as separate parts of an app do.
        func adapter(_ writePolicy: WritePolicy = .immediate) -> DefaultsAdapter<ConformanceKeys> {
            DefaultsAdapter(store: store, keyStore: ConformanceKeys(), writePolicy: writePolicy)
        }

        /// Applies `batch`, recording a failure if the store throws; returns what `apply` returned.
        @discardableResult
        func apply(_ batch: DefaultsBatch, _ what: String) -> Bool? {
            do {
                return try store.apply(batch)
            } catch {
                fail("applying \(what) threw \(error)")
                return nil
            }
        }
    }
}
