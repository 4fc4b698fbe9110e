import Foundation
import Testing
import TypedDefaults
import TypedDefaultsPostgres
import TypedDefaultsTesting

@Suite("PostgresStore conforms")
struct ConformanceTests {
    @Test(arguments: DefaultsStoreConformance.checks)
    func conforms(_ check: DefaultsStoreConformance.Check) async throws {
        let cluster = try Fixture.cluster()
        let url = cluster.url()
        try await check.run(
            on: { try Fixture.store(cluster, suite: Fixture.suite("conformance")) },
            // A new instance, with no local copy, reads what the server holds.
            durableValues: { store in
                try PostgresStore(url: url, suite: store.name, options: Fixture.options()).snapshot()
            },
            writeAsAnotherProcess: { store, values in
                let other = try PostgresStore(url: url, suite: store.name, options: Fixture.options())
                _ = try other.apply(DefaultsBatch(writes: values.mapValues { $0 }))
                try other.flush()
            }
        )
    }
}
