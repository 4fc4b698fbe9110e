import Foundation
import Testing

@testable import TypedDefaults

@Suite("Diagnostics")
struct DiagnosticsTests {
    @Test("a read diagnostic is delivered once per process, a write diagnostic every time")
    func deduplication() throws {
        let suite = IsolatedSuite(fileContents: ["launchCount": "many"])
        for _ in 0..<5 { _ = suite.adapter.launchCount }
        #expect(suite.diagnostics.filter { $0.kind == .storedValueMismatch }.count == 1)

        for _ in 0..<3 { suite.adapter[key: Key<String>("bad", default: "")] = "nul\u{0}" }
        #expect(suite.diagnostics.filter { $0.kind == .writeFailed }.count == 3)
        let diagnostic = try #require(suite.diagnostics.last)
        #expect(diagnostic.key == "bad")
        #expect(diagnostic.suite == suite.name)
        #expect(diagnostic.description.hasPrefix("TypedDefaults[\(suite.name)]: "))
    }

    @Test("by default diagnostics go to standard error, never standard output")
    func defaultHandler() throws {
        let directory = TemporaryConfigDirectory()
        let seed = try PropertyListSerialization.data(fromPropertyList: ["count": "lots"], format: .xml, options: 0)
        try seed.write(to: directory.plist("TypedDefaultsTestHelper"))
        let run = try Helper.run(["print-settings"], configDirectory: directory.url)
        #expect(run.settings["count"] == "0")
        #expect(!run.output.contains("TypedDefaults"))
        #expect(run.errors.contains("TypedDefaults[standard]: \"count\" holds string \"lots\", expected Int"))
        #expect(run.errors.components(separatedBy: "\n").filter { $0.contains("\"count\"") }.count == 1)
    }
}
