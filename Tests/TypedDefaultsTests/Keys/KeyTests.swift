import Foundation
import Testing
import TypedDefaults

@Suite("Keys")
struct KeyTests {
    @Test("a key has a name and a default; an optional key defaults to nil")
    func nameAndDefault() {
        let count = Key<Int>("count", default: 3)
        #expect(count.name == "count")
        #expect(count.defaultValue == 3)
        #expect(Key<String?>("username").defaultValue == nil)
        #expect(Key<Int?>("ratio", default: 2).defaultValue == 2)
    }

    @Test("keys are equal and hash alike when their names are")
    func identityIsTheName() {
        #expect(Key<Int>("a", default: 1) == Key<Int>("a", default: 2))
        #expect(Key<Int>("a", default: 1) != Key<Int>("b", default: 1))
        #expect(Set([Key<Int>("a", default: 1), Key<Int>("a", default: 2), Key<Int>("b", default: 1)]).count == 2)
        #expect("\(Key<Int>("count", default: 0))" == #"Key<Int>("count")"#)
    }

    @Test("keys and adapters cross tasks")
    func sendable() async {
        let key = Key<Int>("count", default: 0)
        let defaults = DefaultsAdapter(store: InMemoryStore(), keyStore: DefaultsKeys())
        await Task.detached { defaults[key: key] = 5 }.value
        #expect(defaults[key: key] == 5)
    }

    @Test("computed key properties in DefaultsKeys build a fresh, equal key on every access")
    func keyStoreKeys() {
        let keys = DefaultsKeys()
        #expect(keys.launchCount == keys.launchCount)
        #expect(keys.launchCount.defaultValue == 0)
        #expect(keys[keyPath: \.username].name == "username")
    }
}
