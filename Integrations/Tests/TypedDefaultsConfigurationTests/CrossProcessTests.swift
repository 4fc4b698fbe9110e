#if !canImport(Darwin)
import Configuration
import Foundation
import Testing
import TypedDefaults
import TypedDefaultsConfiguration

/// Reads and watches of what another process writes to the suite's file: the test helper, a real process that
/// opens the suite by name under the test's own `$XDG_CONFIG_HOME`.
@Suite struct CrossProcessTests {
    @Test func aReaderSeesAnotherProcesssWrites() async throws {
        let suite = try IsolatedSuite()
        let reader = ConfigReader(provider: DefaultsProvider(suite.adapter))
        #expect(reader.int(forKey: "http.timeout", default: 5) == 5)

        try await suite.writeFromAnotherProcess(
            ("http.timeout", "int", "30"),
            ("http.ratio", "double", "0.5"),
            ("feature.enabled", "bool", "true"),
            ("db.host", "string", "db.example.com"),
            ("db.salt", "data", "cafe"),
            ("http.hosts", "strings", "a,b")
        )
        // A fetch reads the file again; a read follows within the store's freshness interval.
        #expect(try await reader.fetchInt(forKey: "http.timeout") == 30)
        #expect(reader.int(forKey: "http.timeout", default: 5) == 30)
        #expect(reader.double(forKey: "http.ratio") == 0.5)
        #expect(reader.bool(forKey: "feature.enabled") == true)
        #expect(reader.string(forKey: "db.host") == "db.example.com")
        #expect(reader.bytes(forKey: "db.salt") == [0xCA, 0xFE])
        #expect(reader.stringArray(forKey: "http.hosts") == ["a", "b"])

        try await suite.writeFromAnotherProcess(("http.timeout", "string", "soon"))
        // A fetch, even with a default, throws the provider's error, as swift-configuration's readers do.
        await #expect(throws: DefaultsProviderError.self) {
            try await reader.fetchInt(forKey: "http.timeout", default: 5)
        }
        #expect(reader.int(forKey: "http.timeout", default: 5) == 5)
    }

    @Test func watchIntDeliversEachOfAnotherProcesssWritesOnceInOrder() async throws {
        let suite = try IsolatedSuite()
        let reader = ConfigReader(provider: DefaultsProvider(suite.adapter))
        let delivered = Delivered<Int>()
        try await withTimeout {
            try await reader.watchInt(forKey: "http.timeout", default: 5) { updates in
                try await collecting(updates, into: delivered) {
                    try await delivered.wait(forCount: 1)
                    // Each value is written once the one before has arrived, so that none is lost to coalescing.
                    for value in 1...4 {
                        try await suite.writeFromAnotherProcess(("http.timeout", "int", "\(value)"))
                        try await delivered.wait(forCount: value + 1)
                    }
                    // Another key's change, and a write of the value already there, deliver nothing.
                    try await suite.writeFromAnotherProcess(("http.host", "string", "a"), ("http.timeout", "int", "4"))
                    try await Task.sleep(for: .milliseconds(200))
                    try await suite.writeFromAnotherProcess(("http.timeout", "remove", ""))
                    try await delivered.wait(forCount: 6)
                    try await suite.writeFromAnotherProcess(("http.timeout", "int", "6"))
                    try await delivered.wait(forCount: 7)
                }
            }
        }
        #expect(delivered.all == [5, 1, 2, 3, 4, 5, 6])
    }

    @Test func watchSnapshotDeliversAnotherProcesssWritesAsOneStateEach() async throws {
        let suite = try IsolatedSuite()
        try suite.adapter.set("old.example.com", for: Key<String>("db.host", default: ""))
        let provider = DefaultsProvider(suite.adapter)
        let delivered = Delivered<[String?]>()
        try await withTimeout {
            try await provider.watchSnapshot { updates in
                let states = updates.map { snapshot in
                    [["db", "host"], ["db", "port"]]
                        .map { key -> String? in
                            switch try? snapshot.value(forKey: AbsoluteConfigKey(key), type: .string).value?.content {
                            case .string(let text): text
                            default: nil
                            }
                        }
                }
                try await collecting(states, into: delivered) {
                    try await delivered.wait(forCount: 1)
                    // Two keys in one write of the file: one state with both.
                    try await suite.writeFromAnotherProcess(
                        ("db.host", "string", "new.example.com"),
                        ("db.port", "string", "5432")
                    )
                    try await delivered.wait(forCount: 2)
                    try await suite.writeFromAnotherProcess(("db.port", "remove", ""))
                    try await delivered.wait(forCount: 3)
                }
            }
        }
        #expect(delivered.all == [["old.example.com", nil], ["new.example.com", "5432"], ["new.example.com", nil]])
    }

    @Test func aWatchLayeredUnderAnotherProviderFollowsTheSuiteWhereTheOtherIsSilent() async throws {
        let suite = try IsolatedSuite()
        let environment = EnvironmentVariablesProvider(environmentVariables: ["HTTP_TIMEOUT": "3"])
        let reader = ConfigReader(providers: [environment, DefaultsProvider(suite.adapter)])
        try await withTimeout {
            try await reader.watchString(forKey: "http.host", default: "localhost") { updates in
                var values = updates.makeAsyncIterator()
                #expect(try await values.next() == "localhost")
                try await suite.writeFromAnotherProcess(("http.host", "string", "example.com"))
                #expect(try await values.next() == "example.com")
            }
        }
        try await suite.writeFromAnotherProcess(("http.timeout", "int", "30"))
        #expect(try await reader.fetchInt(forKey: "http.timeout") == 3)
    }
}
#endif
