import Foundation
import Testing
import TypedDefaults
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
