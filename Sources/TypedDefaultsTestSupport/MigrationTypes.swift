import Foundation
import TypedDefaults

// Types a user migrating from sindresorhus/Defaults or SwiftyUserDefaults brings along, shared by the tests
// and the helper process (a new process reads what the tests wrote). All top level: Foundation on Linux
// archives only top-level classes.

/// A collection of the user's own, stored with no bridge of its own.
public struct Bag<Element: Sendable>: Collection, Sendable {
    /// The elements.
    public var items: [Element]
    /// Creates the bag from its elements.
    public init(_ elements: [Element]) { items = elements }
    /// The first index.
    public var startIndex: Int { items.startIndex }
    /// Past the last index.
    public var endIndex: Int { items.endIndex }
    /// The element at `position`.
    public subscript(position: Int) -> Element { items[position] }
    /// The index after `index`.
    public func index(after index: Int) -> Int { items.index(after: index) }
}

extension Bag: Equatable where Element: Equatable {}
extension Bag: DefaultsSerializable, DefaultsCollectionSerializable where Element: DefaultsSerializable {}

/// A set algebra of the user's own (not a `Sequence`), stored with no bridge of its own.
public struct TagSet: SetAlgebra, Sendable, Equatable, DefaultsSetAlgebraSerializable {
    private var storage: Set<String>
    /// An empty set.
    public init() { storage = [] }
    /// Whether `member` is in the set.
    public func contains(_ member: String) -> Bool { storage.contains(member) }
    /// The union.
    public func union(_ other: TagSet) -> TagSet { TagSet(storage: storage.union(other.storage)) }
    /// The intersection.
    public func intersection(_ other: TagSet) -> TagSet { TagSet(storage: storage.intersection(other.storage)) }
    /// The symmetric difference.
    public func symmetricDifference(_ other: TagSet) -> TagSet {
        TagSet(storage: storage.symmetricDifference(other.storage))
    }
    /// Inserts `member`.
    @discardableResult
    public mutating func insert(_ member: String) -> (inserted: Bool, memberAfterInsert: String) {
        storage.insert(member)
    }
    /// Removes `member`.
    @discardableResult
    public mutating func remove(_ member: String) -> String? { storage.remove(member) }
    /// Inserts or replaces `member`.
    @discardableResult
    public mutating func update(with member: String) -> String? { storage.update(with: member) }
    /// Keeps the union.
    public mutating func formUnion(_ other: TagSet) { storage.formUnion(other.storage) }
    /// Keeps the intersection.
    public mutating func formIntersection(_ other: TagSet) { storage.formIntersection(other.storage) }
    /// Keeps the symmetric difference.
    public mutating func formSymmetricDifference(_ other: TagSet) { storage.formSymmetricDifference(other.storage) }
    /// The elements, sorted so the stored array is stable.
    public func toArray() -> [String] { storage.sorted() }

    private init(storage: Set<String>) { self.storage = storage }
}

/// A class that adopts only `NSCoding`, as SwiftyUserDefaults users store them.
public final class Note: NSObject, NSCoding, DefaultsSerializable {
    /// The text.
    public let text: String
    /// Another note this one refers to, if any.
    public var next: Note?

    /// Creates a note.
    public init(text: String, next: Note? = nil) {
        self.text = text
        self.next = next
    }

    /// Encodes the text and the next note.
    public func encode(with coder: NSCoder) {
        coder.encode(text, forKey: "text")
        coder.encode(next, forKey: "next")
    }

    /// Decodes the text and the next note.
    public init?(coder: NSCoder) {
        guard let text = coder.decodeObject(forKey: "text") as? String else { return nil }
        self.text = text
        self.next = coder.decodeObject(forKey: "next") as? Note
    }
}

/// An `Int` enum that is also `Codable`: stored by raw value here, as JSON text by sindresorhus/Defaults.
public enum Level: Int, Codable, Sendable, DefaultsSerializable {
    case low = 1
    case high = 2
}
