import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// `Range` and `ClosedRange` keys: the two-element array sindresorhus/Defaults stores, and no crash on bounds
/// no range can have.
@Suite("Range bridges")
struct RangeBridgeTests {
    @Test("ranges are stored as [lower, upper] in the bounds' own forms, and read back in a new process")
    func storedForm() throws {
        let suite = IsolatedSuite()
        suite.adapter[key: Key<Range<Int>?>("hours")] = 9..<17
        suite.adapter[key: Key<ClosedRange<Double>?>("limits")] = 0.25...0.75
        suite.adapter[key: Key<Range<Date>?>("window")] =
            Date(timeIntervalSinceReferenceDate: 0.5)..<Date(timeIntervalSinceReferenceDate: 10)

        let file = try suite.fileContents()
        #expect(file["hours"] as? [Int] == [9, 17])
        #expect(file["limits"] as? [Double] == [0.25, 0.75])
        // Each bound in its own type's form: a Date is ISO 8601 text.
        #expect(file["window"] as? [String] == ["2001-01-01T00:00:00.5Z", "2001-01-01T00:00:10Z"])

        let run = try Helper.run(["print-migration-types", suite.name], configDirectory: suite.directory.url)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.settings["hours"] == "9..<17")
        #expect(run.settings["limits"] == "0.25...0.75")
    }

    @Test("empty and one-value ranges survive")
    func degenerate() {
        let defaults = IsolatedSuite().adapter
        defaults[key: Key<Range<Int>>("empty", default: 0..<1)] = 5..<5
        defaults[key: Key<ClosedRange<Int>>("point", default: 0...1)] = 5...5
        #expect(defaults[key: Key<Range<Int>>("empty", default: 0..<1)] == 5..<5)
        #expect(defaults[key: Key<ClosedRange<Int>>("point", default: 0...1)] == 5...5)
    }

    @Test("ranges sindresorhus/Defaults stored read as they are")
    func peerBytes() {
        let suite = IsolatedSuite(fileContents: ["hours": [9, 17], "limits": [0.2, 0.8], "letters": ["a", "f"]])
        #expect(suite.adapter[key: Key<Range<Int>>("hours", default: 0..<1)] == 9..<17)
        #expect(suite.adapter[key: Key<ClosedRange<Double>>("limits", default: 0...1)] == 0.2...0.8)
        #expect(suite.adapter[key: Key<ClosedRange<String>>("letters", default: "x"..."y")] == "a"..."f")
        #expect(suite.diagnostics.isEmpty)
    }

    @Test(
        "bounds no range can have read as the default with a diagnostic, never a crash",
        arguments: [
            ("lower above upper", [17, 9], "not at most"),
            ("one bound", [9], "has 1 elements"),
            ("three bounds", [1, 2, 3], "has 3 elements"),
            ("no bounds", [], "has 0 elements"),
            ("a string bound", ["nine", 17], "lower bound is string"),
            ("a string upper bound", [9, "x"], "upper bound is string"),
            ("a nested array", [[1], 2], "lower bound is array"),
        ] as [(String, PropertyListValue, String)]
    )
    func badBounds(_ label: String, stored: PropertyListValue, reason: String) throws {
        let suite = IsolatedSuite(fileContents: ["open": stored.foundationObject, "closed": stored.foundationObject])
        #expect(suite.adapter[key: Key<Range<Int>>("open", default: 1..<2)] == 1..<2, "\(label)")
        #expect(suite.adapter[key: Key<ClosedRange<Int>>("closed", default: 1...2)] == 1...2, "\(label)")
        let mismatches = suite.diagnostics.filter { $0.kind == .storedValueMismatch }
        #expect(Set(mismatches.compactMap(\.key)) == ["open", "closed"], "\(label)")
        #expect(mismatches.allSatisfy { $0.message.contains(reason) }, "\(label): \(mismatches.map(\.message))")
        #expect(try suite.fileContents()["open"] != nil, "the stored value is left as it is")
    }

    @Test("a NaN bound or a value that is not an array is a mismatch too")
    func otherMismatches() {
        let suite = IsolatedSuite(fileContents: ["nan": [Double.nan, 1.0], "text": "9..<17"])
        #expect(suite.adapter[key: Key<ClosedRange<Double>>("nan", default: 0...1)] == 0...1)
        #expect(suite.adapter[key: Key<Range<Int>>("text", default: 0..<1)] == 0..<1)
        #expect(suite.diagnostics.filter { $0.kind == .storedValueMismatch }.count == 2)
    }
}
