import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

extension Key {
    fileprivate static var counter: Key<Int> { .init("counter", default: 0) }
    fileprivate static var other: Key<Int> { .init("other", default: 0) }
    fileprivate static var label: Key<String> { .init("label", default: "") }
}

/// Sets its flag when released.
private final class Sentinel: Sendable {
    let released: Locked<Bool>
    init(_ released: Locked<Bool>) { self.released = released }
    deinit { released.withLock { $0 = true } }
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

        @Test(
            "an NSCoding object thousands of levels deep is refused when written, in a process that carries on",
            arguments: [300, 30_000]
        )
        func deepNoteWrite(levels: Int) throws {
            #if canImport(Darwin)
            return  // Apple's archiver is Foundation's own; the guard is Linux's
            #else
            let directory = TemporaryConfigDirectory()
            // 30,000 overflowed an 8 MB main thread inside the archiver, before the finished archive was checked.
            let run = try Helper.run(["deep-note", "deep", "\(levels)"], configDirectory: directory.url)
            #expect(run.status == 0, "\(run.errors.suffix(300))")
            #expect(run.output.contains("more than 256 levels deep"), "\(run.output)")
            #endif
        }

        @Test("a wide archive with shared objects is not taken for a deep one")
        func wideArchive() throws {
            let suite = IsolatedSuite()
            let shared = Note(text: "shared")
            let notes = (0..<600).map { Note(text: "\($0)", next: shared) }
            let key = Key<Envelope?>("wide")
            try suite.adapter.set(Envelope(first: notes as NSArray, second: Note(text: "tail", next: shared)), for: key)
            let read = try #require(suite.adapter[key: key])
            let elements = try #require(read.first as? [Note])
            #expect(elements.count == 600 && elements.allSatisfy { $0.next === elements[0].next })
            #expect((read.second as? Note)?.next === elements[0].next)
        }

        @Test("a nested modify whose body writes the outer modify's key is caught at once, not taken for contention")
        func nestedModifyWritesOuterKey() throws {
            // It was retried 10,000 times (some 30 seconds), each retry's inner write adding 10 to the value.
            let suite = IsolatedSuite(writePolicy: .coalesced)
            let defaults = suite.adapter
            let attempts = Locked(0)
            let outcome = Result { () throws(DefaultsError) in
                try defaults.modify(.counter) { value in
                    attempts.withLock { $0 += 1 }
                    _ = try? defaults.modify(.other) { other in
                        defaults[.counter] += 10
                        other += 1
                    }
                    value += 1
                }
            }
            guard case .failure(let error) = outcome else {
                Issue.record("the outer modify succeeded though its body changed its value")
                return
            }
            #expect(error.description.contains("wrote the value it modifies"), "\(error)")
            #expect(attempts.withLock { $0 } == 1)
            #expect(defaults[.counter] == 10 && defaults[.other] == 1)
        }

        @Test("synchronous handlers on short-lived threads run on each writer, and each thread's state goes with it")
        func shortLivedWriters() {
            let suite = IsolatedSuite(writePolicy: .coalesced)
            let defaults = suite.adapter
            let calls = Locked(0)
            let token = defaults.observe(.counter, options: [.synchronous]) { _ in
                defaults[.other] += 1  // a handler that writes, on a thread about to end
                calls.withLock { $0 += 1 }
            }
            let group = DispatchGroup()
            for index in 1...100 {
                group.enter()
                Thread.detachNewThread {
                    defaults[.counter] = index
                    group.leave()
                }
            }
            group.wait()
            #expect(calls.withLock { $0 } >= 1)
            token.invalidate()
            // What a thread's state holds is released when the thread ends.
            let released = Locked(false)
            Thread.detachNewThread {
                let sentinel = Sentinel(released)
                ThreadContext.current(create: true)?.pointee.afterWrite.append { _ = sentinel }
            }
            #expect(eventually { released.withLock { $0 } })
        }
    }
}
