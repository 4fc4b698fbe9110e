import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

extension Key {
    fileprivate static var counter: Key<Int> { .init("counter", default: 0) }
    fileprivate static var other: Key<Int> { .init("other", default: 0) }
    fileprivate static var label: Key<String> { .init("label", default: "") }
}

/// The issue-13 additions under attack: each test is a problem a hostile review found, reproduced with real
/// suites and, where the process could die, a real child process.
extension Hostile {
    @Suite("Hostile: migration attacks")
    struct MigrationAttackTests {
        @Test("resetting other keys inside a modify body is not a write of the modified key")
        func resetOthersInsideModify() throws {
            let suite = IsolatedSuite()
            let defaults = suite.adapter
            defaults[.other] = 5
            defaults[.label] = "x"
            // Several keys of different types, and several of one type: both are one write of other keys.
            #expect(
                try defaults.modify(.counter) {
                    defaults.reset(.other, .label)
                    $0 += 1
                } == 1
            )
            defaults[.other] = 6
            #expect(
                try defaults.modify(.counter) {
                    defaults.reset([Key<Int>.other])
                    $0 += 1
                } == 2
            )
            #expect(defaults[.counter] == 2 && defaults[.other] == 0 && defaults[.label] == "")
            #expect(try suite.fileContents()["counter"] as? Int == 2)
            // Resetting the modified key itself among others is still caught.
            #expect(throws: DefaultsError.self) {
                try defaults.modify(.counter) {
                    defaults.reset(.other, .counter)
                    $0 += 1
                }
            }
        }
    }
}
