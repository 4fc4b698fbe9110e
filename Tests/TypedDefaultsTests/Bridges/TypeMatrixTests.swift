import Foundation
import Testing
@testable import TypedDefaults
import TypedDefaultsTestSupport

/// The shared type matrix (every supported type as value, optional, array, nested array, dictionary and
/// dictionary of arrays) must come back exactly from every store, in this process and in a new one.
@Suite("Type matrix")
struct TypeMatrixTests {
    @Test("round-trips through the in-memory store")
    func inMemory() throws {
        let defaults = DefaultsAdapter(store: InMemoryStore(), keyStore: DefaultsKeys())
        try TypeMatrix.write(TypeMatrix.catalog, to: defaults)
        #expect(TypeMatrix.failures(TypeMatrix.catalog, in: defaults) == [])
    }

    @Test("round-trips through a real suite, read by a second adapter in the same process")
    func sameProcess() throws {
        let suite = IsolatedSuite()
        try TypeMatrix.write(TypeMatrix.catalog, to: suite.adapter)
        let reader = try suite.secondAdapter(keyStore: DefaultsKeys())
        #expect(TypeMatrix.failures(TypeMatrix.catalog, in: reader) == [])
    }

    @Test("round-trips to a new process: one child writes, another reads")
    func newProcess() throws {
        let directory = TemporaryConfigDirectory()
        let written = try Helper.run(["write-matrix", "matrix"], configDirectory: directory.url)
        #expect(written.status == 0, "\(written.errors)")
        let verified = try Helper.run(["verify-matrix", "matrix"], configDirectory: directory.url)
        #expect(verified.status == 0, "\(verified.output)\(verified.errors)")
        #expect(verified.output.contains("verified \(TypeMatrix.catalog.count) of \(TypeMatrix.catalog.count)"))
    }

    @Test("what this process writes, a new process reads exactly")
    func thisProcessToChild() throws {
        let suite = IsolatedSuite()
        try TypeMatrix.write(TypeMatrix.catalog, to: suite.adapter)
        let verified = try Helper.run(["verify-matrix", suite.name], configDirectory: suite.directory.url)
        #expect(verified.status == 0, "\(verified.output)\(verified.errors)")
    }

    @Test("the file stays a valid property list for other readers")
    func fileParsesAsPropertyList() throws {
        let suite = IsolatedSuite()
        try TypeMatrix.write(TypeMatrix.catalog, to: suite.adapter)
        let contents = try suite.fileContents()
        #expect(
            contents.count == TypeMatrix.catalog.count
                - TypeMatrix.catalog.filter { $0.key.hasSuffix(".removed") }.count
        )
    }
}

@Suite("Property-list XML")
struct PropertyListXMLTests {
    @Test("TypedDefaults writes byte for byte what Foundation writes, reals and dates aside")
    func sameBytesAsFoundation() throws {
        let values: [String: PropertyListValue] = [
            "string": .string("a<b&c>\"' héllo"),
            "integer": .integer(.min),
            "unsigned": .unsignedInteger(.max),
            "true": .bool(true),
            "false": .bool(false),
            "data": .data(Data(repeating: 7, count: 100)),
            "empty data": .data(Data()),
            "array": .array([.integer(1), .string("x"), .array([]), .dictionary([:])]),
            "dict": .dictionary(["nested": .array([.data(Data([1, 2, 3]))]), "k": .string("")]),
        ]
        let foundation = try PropertyListSerialization.data(
            fromPropertyList: PropertyListValue.dictionary(values).foundationObject,
            format: .xml,
            options: 0
        )
        #expect(
            String(decoding: PropertyListXML.data(values), as: UTF8.self) == String(decoding: foundation, as: UTF8.self)
        )
    }

    @Test("reals and dates read back exactly through Foundation's reader")
    func realsAndDates() throws {
        let reals: [Double] = [
            0.1, 3.14, -0.0, 1e20, .leastNonzeroMagnitude, .greatestFiniteMagnitude, .infinity, -.infinity, .nan,
        ]
        var values: [String: PropertyListValue] = ["date": .date(Date(timeIntervalSinceReferenceDate: 816_942_874))]
        for (index, real) in reals.enumerated() { values["r\(index)"] = .double(real) }
        let parsed = try parsedSuite(PropertyListXML.data(values))
        for (index, real) in reals.enumerated() {
            guard case .double(let read)? = parsed["r\(index)"] else {
                Issue.record("r\(index) did not come back as a real")
                continue
            }
            #expect(read.isExactly(real), "\(real) read back as \(read)")
        }
        #expect(parsed["date"] == .date(Date(timeIntervalSinceReferenceDate: 816_942_874)))
    }
}
