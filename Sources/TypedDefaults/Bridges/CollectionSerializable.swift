/// A collection of your own that is stored as an `<array>` of its elements, with no bridge to write.
///
/// Adopt it with an initializer from an array of elements; the default `bridge` is a ``CollectionBridge``.
/// The requirement is the one sindresorhus/Defaults makes of its `Defaults.CollectionSerializable`, so a
/// conformance moves over by renaming the protocol. A type that is also `Codable` is stored as an array too.
///
/// ## Usage
/// ```swift
/// struct Bag<Element>: Collection {
///     var items: [Element]
///     init(_ elements: [Element]) { items = elements }
///     var startIndex: Int { items.startIndex }
///     var endIndex: Int { items.endIndex }
///     subscript(position: Int) -> Element { items[position] }
///     func index(after index: Int) -> Int { items.index(after: index) }
/// }
/// // A conditional conformance names DefaultsSerializable too, as Swift requires of inherited protocols.
/// extension Bag: DefaultsSerializable, DefaultsCollectionSerializable where Element: DefaultsSerializable {}
///
/// let recent = Key<Bag<String>>("recent", default: Bag([]))   // stored as <array><string>…</string></array>
/// ```
public protocol DefaultsCollectionSerializable: Collection, DefaultsSerializable {
    /// Creates the collection from its elements, in the order the collection lists them.
    init(_ elements: [Element])
}

/// A set algebra of your own that is stored as an `<array>` of its elements, with no bridge to write.
///
/// Adopt it with a method that lists the elements (`SetAlgebra` itself cannot); the default `bridge` is a
/// ``SetAlgebraBridge``, which reads the elements back with `SetAlgebra`'s `init(_:)` from a sequence. The
/// requirement is the one sindresorhus/Defaults makes of its `Defaults.SetAlgebraSerializable`, so a
/// conformance moves over by renaming the protocol.
///
/// An `OptionSet` needs none of this: it is `RawRepresentable`, and `extension Options: DefaultsSerializable {}`
/// stores its raw value. (Its elements are the option set itself, which could not be stored element by element.)
///
/// ## Usage
/// ```swift
/// struct Tags: SetAlgebra { var storage: Set<String> ... }
/// extension Tags: DefaultsSetAlgebraSerializable {
///     func toArray() -> [String] { storage.sorted() }
/// }
///
/// let tags = Key<Tags>("tags", default: Tags())   // stored as <array><string>a</string>…</array>
/// ```
public protocol DefaultsSetAlgebraSerializable: SetAlgebra, DefaultsSerializable {
    /// The elements of the set, in the order they are stored.
    func toArray() -> [Element]
}

/// Stores a ``DefaultsCollectionSerializable`` collection as an `<array>` of its elements' stored forms.
///
/// The elements are stored and read as `[Element]` would be (the same checks, the same errors), and the
/// collection is made from them with its `init(_:)`.
///
/// ## Usage
/// ```swift
/// extension Bag: DefaultsSerializable, DefaultsCollectionSerializable where Element: DefaultsSerializable {}
/// ```
public struct CollectionBridge<Value: DefaultsCollectionSerializable>: DefaultsBridge
where Value.Element: DefaultsSerializable {
    /// Creates the bridge.
    @inlinable
    public init() {}

    /// Decoding parses, so reads keep the decoded value.
    @inlinable
    public var decodesAtACost: Bool { true }

    /// Returns `.array` of the elements' stored forms; throws if an element has none.
    @inlinable
    public func serialize(_ value: Value) throws -> PropertyListValue? {
        try ArrayBridge<Value.Element>().serialize(Array(value))
    }

    /// Returns the collection of an `.array`'s elements; throws naming the first element that is not one.
    @inlinable
    public func deserialize(_ stored: PropertyListValue) throws -> Value? {
        try ArrayBridge<Value.Element>().deserialize(stored).map(Value.init)
    }
}

/// Stores a ``DefaultsSetAlgebraSerializable`` set as an `<array>` of its elements' stored forms.
///
/// Serializing lists the elements with `toArray()`; reading makes the set with `init(_:)` from a sequence,
/// so a stored element that appears twice is simply there once.
///
/// ## Usage
/// ```swift
/// extension Tags: DefaultsSetAlgebraSerializable { func toArray() -> [String] { storage.sorted() } }
/// ```
public struct SetAlgebraBridge<Value: DefaultsSetAlgebraSerializable>: DefaultsBridge
where Value.Element: DefaultsSerializable {
    /// Creates the bridge.
    @inlinable
    public init() {}

    /// Decoding parses, so reads keep the decoded value.
    @inlinable
    public var decodesAtACost: Bool { true }

    /// Returns `.array` of the elements' stored forms; throws if an element has none.
    @inlinable
    public func serialize(_ value: Value) throws -> PropertyListValue? {
        try ArrayBridge<Value.Element>().serialize(value.toArray())
    }

    /// Returns the set of an `.array`'s elements; throws naming the first element that is not one.
    @inlinable
    public func deserialize(_ stored: PropertyListValue) throws -> Value? {
        try ArrayBridge<Value.Element>().deserialize(stored).map { Value($0) }
    }
}

extension DefaultsCollectionSerializable where Element: DefaultsSerializable {
    /// Stores the collection as an `<array>` of its elements.
    @inlinable
    public static var bridge: CollectionBridge<Self> { CollectionBridge() }
}

extension DefaultsCollectionSerializable where Self: Codable, Element: DefaultsSerializable {
    /// Stores the collection as an `<array>` of its elements: adopting the protocol asks for that.
    @inlinable
    public static var bridge: CollectionBridge<Self> { CollectionBridge() }
}

extension DefaultsSetAlgebraSerializable where Element: DefaultsSerializable {
    /// Stores the set as an `<array>` of its elements.
    @inlinable
    public static var bridge: SetAlgebraBridge<Self> { SetAlgebraBridge() }
}

extension DefaultsSetAlgebraSerializable where Self: Codable, Element: DefaultsSerializable {
    /// Stores the set as an `<array>` of its elements: adopting the protocol asks for that.
    @inlinable
    public static var bridge: SetAlgebraBridge<Self> { SetAlgebraBridge() }
}
