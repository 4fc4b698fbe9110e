import Foundation
import TypedDefaults

// Values built to break bridges: deeply nested Codable values, and NSSecureCoding classes that Foundation's
// keyed archiver on Linux cannot name. The private ones are reached through the functions at the end.

/// An enum nested through its associated value, as the compiler synthesizes it: each `node` is two JSON
/// objects, `{"node":{"_0":…}}`, and the leaf is two, `{"leaf":{}}`.
public indirect enum Nest: Codable, Equatable, Sendable, DefaultsSerializable {
    /// The end.
    case leaf
    /// One more level.
    case node(Nest)

    /// `levels` nodes around a leaf: `2 * levels + 2` levels of JSON.
    public static func nodes(_ levels: Int) -> Nest {
        var nest = Nest.leaf
        for _ in 0..<levels { nest = .node(nest) }
        return nest
    }

    /// How many nodes, counted without recursion.
    public var nodeCount: Int {
        var count = 0
        var current = self
        while case .node(let inner) = current {
            count += 1
            current = inner
        }
        return count
    }
}

/// A linked list of classes: each link is one JSON object, `{"next":{…}}`.
public final class Chain: Codable, Sendable, DefaultsSerializable {
    /// The next link.
    public let next: Chain?

    /// Creates a link before `next`.
    public init(next: Chain?) { self.next = next }

    /// `links` links: `links` levels of JSON.
    public static func links(_ links: Int) -> Chain {
        var chain = Chain(next: nil)
        for _ in 1..<max(links, 1) { chain = Chain(next: chain) }
        return chain
    }

    /// How many links, counted without recursion.
    public var linkCount: Int {
        var count = 1
        var current = self
        while let next = current.next {
            count += 1
            current = next
        }
        return count
    }
}

/// Arrays inside arrays, `[[[…]]]`, written and read with loops: JSON depth without any recursion in the type.
public struct Brackets: Codable, Equatable, Sendable, DefaultsSerializable {
    /// How many arrays deep.
    public var depth: Int

    /// Creates `depth` nested arrays.
    public init(depth: Int) { self.depth = depth }

    /// Opens `depth` nested unkeyed containers.
    public func encode(to encoder: any Encoder) throws {
        guard depth > 0 else {
            var container = encoder.singleValueContainer()
            try container.encodeNil()
            return
        }
        var container = encoder.unkeyedContainer()
        for _ in 1..<depth { container = container.nestedUnkeyedContainer() }
    }

    /// Counts the nested arrays.
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), single.decodeNil() {
            depth = 0
            return
        }
        var container = try decoder.unkeyedContainer()
        var depth = 1
        while !container.isAtEnd {
            container = try container.nestedUnkeyedContainer()
            depth += 1
        }
        self.depth = depth
    }
}

/// A value wrapped in itself through single-value containers: the JSON is one number however deep it is, but
/// `JSONEncoder` recurses once per wrapper.
public indirect enum WrapperChain: Codable, Sendable, DefaultsSerializable {
    /// The number.
    case leaf(Int)
    /// One more wrapper.
    case wrap(WrapperChain)

    /// `levels` wrappers around `leaf(1)`.
    public static func wrappers(_ levels: Int) -> WrapperChain {
        var wrapped = WrapperChain.leaf(1)
        for _ in 0..<levels { wrapped = .wrap(wrapped) }
        return wrapped
    }

    /// Encodes the number, through every wrapper.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .leaf(let number): try container.encode(number)
        case .wrap(let inner): try container.encode(inner)
        }
    }

    /// Decodes the number as a leaf.
    public init(from decoder: any Decoder) throws {
        self = .leaf(try decoder.singleValueContainer().decode(Int.self))
    }
}

/// A Codable value whose `encode(to:)` swallows its children's errors with `try?`.
public struct Swallowing: Codable, Sendable, DefaultsSerializable {
    /// What it holds.
    public var inner: Chain

    /// Holds `inner`.
    public init(inner: Chain) { self.inner = inner }

    private enum CodingKeys: String, CodingKey { case inner }

    /// Encodes `inner`, ignoring any error.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try? container.encode(inner, forKey: .inner)
    }
}

/// A secure-coding base class for the archive tests; top level, so Foundation on Linux can name it.
open class ArchivedThing: NSObject, NSSecureCoding {
    /// A number.
    public let number: Int

    /// Creates a thing.
    public init(number: Int) { self.number = number }

    /// Things decode only as their class.
    open class var supportsSecureCoding: Bool { true }

    /// Encodes the number.
    open func encode(with coder: NSCoder) { coder.encode(number, forKey: "number") }

    /// Decodes the number.
    public required init?(coder: NSCoder) { number = coder.decodeInteger(forKey: "number") }
}

/// A top-level thing, which archives on every platform.
public final class PlainThing: ArchivedThing, DefaultsSerializable {}

private final class PrivateThing: ArchivedThing, DefaultsSerializable {}

/// A class inside a namespace.
public enum Things {
    /// A nested class: `Module.Things.Nested`.
    public final class Nested: ArchivedThing, DefaultsSerializable {}
}

/// A generic class: `Module.GenericThing<Swift.Int>`.
public final class GenericThing<Tag>: ArchivedThing, DefaultsSerializable {}

/// A top-level class whose superclass is generic.
public final class ConcreteThing: GenericBase<Int>, DefaultsSerializable {}

/// A generic base class.
open class GenericBase<Tag>: ArchivedThing {}

/// A top-level class that encodes another object: its `encode(with:)` is where a private class can hide.
public final class ThingHolder: ArchivedThing, DefaultsSerializable {
    /// What it encodes: the object itself, or an array holding it.
    public let held: Any

    /// Holds `held`.
    public init(holding held: Any) {
        self.held = held
        super.init(number: 0)
    }

    /// Encodes the held object.
    public override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(held, forKey: "held")
    }

    /// Decodes a held plain thing.
    public required init?(coder: NSCoder) {
        guard let held = coder.decodeObject(of: PlainThing.self, forKey: "held") else { return nil }
        self.held = held
        super.init(coder: coder)
    }
}

/// A class that archives under the name of a private class (`classForKeyedArchiver`).
public final class Masquerading: ArchivedThing, DefaultsSerializable {
    /// The private class.
    public override var classForKeyedArchiver: AnyClass? { PrivateThing.self }
}

/// An object that adopts only `NSCoding`, not `NSSecureCoding`.
public final class InsecureThing: NSObject, NSCoding {
    /// Creates one.
    public override init() {}
    /// Encodes nothing.
    public func encode(with coder: NSCoder) {}
    /// Decodes nothing.
    public init?(coder: NSCoder) {}
}

/// The hostile archive cases, each as one write: their types are private or need a value to build.
public enum HostileArchives {
    /// The case names the helper and the tests share.
    public static let writeCases = [
        "private", "nested", "generic", "generic-superclass", "holds-private", "holds-private-in-array",
        "holds-nested", "masquerading", "holds-insecure", "holds-struct",
    ]

    /// Writes the case's value with `set` (which throws) for key `"thing"`; returns the error, or `nil`.
    public static func write<KeyStore>(
        _ name: String,
        to defaults: DefaultsAdapter<KeyStore>
    ) -> DefaultsError? {
        do {
            switch name {
            case "private": try defaults.set(PrivateThing(number: 1), for: Key<PrivateThing?>("thing"))
            case "nested": try defaults.set(Things.Nested(number: 1), for: Key<Things.Nested?>("thing"))
            case "generic": try defaults.set(GenericThing<Int>(number: 1), for: Key<GenericThing<Int>?>("thing"))
            case "generic-superclass": try defaults.set(ConcreteThing(number: 1), for: Key<ConcreteThing?>("thing"))
            case "holds-private": try set(ThingHolder(holding: PrivateThing(number: 1)), in: defaults)
            case "holds-private-in-array":
                try set(ThingHolder(holding: [PlainThing(number: 1), PrivateThing(number: 2)]), in: defaults)
            case "holds-nested": try set(ThingHolder(holding: ["key": Things.Nested(number: 1)]), in: defaults)
            case "masquerading": try defaults.set(Masquerading(number: 1), for: Key<Masquerading?>("thing"))
            case "holds-insecure": try set(ThingHolder(holding: InsecureThing()), in: defaults)
            case "holds-struct": try set(ThingHolder(holding: Reading(value: 1)), in: defaults)
            default: return .valueNotStorable(key: "thing", type: "?", reason: "unknown case \(name)")
            }
            return nil
        } catch {
            return error
        }
    }

    /// Writes the case's value with the subscript (which reports instead of throwing).
    public static func assign<KeyStore>(_ name: String, to defaults: DefaultsAdapter<KeyStore>) {
        switch name {
        case "private": defaults[key: Key<PrivateThing?>("thing")] = PrivateThing(number: 1)
        case "holds-private": defaults[key: Key<ThingHolder?>("thing")] = ThingHolder(holding: PrivateThing(number: 1))
        default: break
        }
    }

    /// Reads key `"thing"` as the case's class (`private`, `nested`, `generic`, `plain`, `holder`); describes
    /// what came back.
    public static func read<KeyStore>(_ name: String, from defaults: DefaultsAdapter<KeyStore>) -> String {
        switch name {
        case "private": describe(defaults[key: Key<PrivateThing?>("thing")])
        case "nested": describe(defaults[key: Key<Things.Nested?>("thing")])
        case "generic": describe(defaults[key: Key<GenericThing<Int>?>("thing")])
        case "plain": describe(defaults[key: Key<PlainThing?>("thing")])
        case "holder": describe(defaults[key: Key<ThingHolder?>("thing")])
        default: "unknown case \(name)"
        }
    }

    private static func set<KeyStore>(_ holder: ThingHolder, in defaults: DefaultsAdapter<KeyStore>)
        throws(DefaultsError)
    {
        try defaults.set(holder, for: Key<ThingHolder?>("thing"))
    }

    private static func describe(_ thing: ArchivedThing?) -> String {
        thing.map { "\(type(of: $0))(\($0.number))" } ?? "nil"
    }
}
