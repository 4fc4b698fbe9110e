import Foundation

/// Stores an `Optional`: `nil` stores nothing (the key is removed), and a value is stored by its own bridge.
///
/// ## Usage
/// ```swift
/// let username = Key<String?>("username")   // the default is nil
/// Defaults[key: username] = "ann"
/// Defaults[key: username] = nil             // removes the key
/// ```
public struct OptionalBridge<Wrapped: DefaultsSerializable>: DefaultsBridge {
    /// Creates the bridge.
    @inlinable
    public init() {}

    /// As costly as the wrapped type's decoding.
    @inlinable
    public var decodesAtACost: Bool { Wrapped.bridge.decodesAtACost }

    /// Returns `nil` for `nil`, and the wrapped value's stored form otherwise.
    @inlinable
    public func serialize(_ value: Wrapped?) throws -> PropertyListValue? {
        guard let value else { return nil }
        return try Wrapped.storedForm(of: value)
    }

    /// Returns the wrapped value, or `nil` (a mismatch) when the stored value is not a `Wrapped`.
    @inlinable
    public func deserialize(_ stored: PropertyListValue) throws -> Wrapped?? {
        guard let value = try Wrapped.value(fromStoredForm: stored) else { return nil }
        let wrapped: Wrapped? = value
        return wrapped
    }
}

/// Stores an `Array` as an `<array>` of its elements' stored forms.
///
/// A property-list array cannot hold `nil`, so an array of optionals that contains `nil` is refused with a
/// ``DefaultsError`` (Foundation itself stops the process on it).
///
/// ## Usage
/// ```swift
/// let recentFiles = Key<[URL]>("recentFiles", default: [])
/// Defaults[key: recentFiles].append(URL(fileURLWithPath: "/tmp/a.txt"))
/// ```
public struct ArrayBridge<Element: DefaultsSerializable>: DefaultsBridge {
    /// Creates the bridge.
    @inlinable
    public init() {}

    /// Decoding parses, so reads keep the decoded value.
    @inlinable
    public var decodesAtACost: Bool { true }

    /// Returns `.array` of the elements' stored forms; throws if an element has none.
    @inlinable
    public func serialize(_ value: [Element]) throws -> PropertyListValue? {
        var items: [PropertyListValue] = []
        items.reserveCapacity(value.count)
        for (index, element) in value.enumerated() {
            guard let item = try Element.storedForm(of: element) else {
                throw DefaultsBridgeError("element \(index) is nil, and a property-list array cannot hold nil")
            }
            items.append(item)
        }
        return .array(items)
    }

    /// Returns the elements of an `.array`; throws naming the first element that is not an `Element`.
    ///
    /// Also reads the arrays SwiftyUserDefaults stored whole, as one `<data>`: of `Codable` values as one JSON
    /// document, and of URLs as one keyed archive.
    @inlinable
    public func deserialize(_ stored: PropertyListValue) throws -> [Element]? {
        if case .data(let whole) = stored { return try Self.elements(ofWhole: whole) }
        guard case .array(let items) = stored else { return nil }
        var elements: [Element] = []
        elements.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard let element = try Element.value(fromStoredForm: item) else {
                throw DefaultsBridgeError("element \(index) is \(item.summary), expected \(Element.self)")
            }
            elements.append(element)
        }
        return elements
    }
}

extension ArrayBridge {
    /// The elements of an array stored whole, as one `<data>` (see `WholeArrayForms`); kept out of line.
    @usableFromInline
    static func elements(ofWhole whole: Data) throws -> [Element]? {
        try WholeArrayForms.elements(of: whole, as: Element.self)
    }
}

/// Stores a `Set` as an `<array>` of its elements' stored forms.
///
/// ## Usage
/// ```swift
/// let tags = Key<Set<String>>("tags", default: [])
/// Defaults[key: tags].insert("swift")
/// ```
public struct SetBridge<Element: DefaultsSerializable & Hashable>: DefaultsBridge {
    /// Creates the bridge.
    @inlinable
    public init() {}

    /// Decoding parses, so reads keep the decoded value.
    @inlinable
    public var decodesAtACost: Bool { true }

    /// Returns `.array` of the elements' stored forms.
    @inlinable
    public func serialize(_ value: Set<Element>) throws -> PropertyListValue? {
        try ArrayBridge<Element>().serialize(Array(value))
    }

    /// Returns the elements of an `.array` as a set.
    @inlinable
    public func deserialize(_ stored: PropertyListValue) throws -> Set<Element>? {
        guard let elements = try ArrayBridge<Element>().deserialize(stored) else { return nil }
        return Set(elements)
    }
}

/// Stores a `Dictionary` as a `<dict>`; keys are stored as their text (`description`).
///
/// Any key type that converts to text and back (`String`, integers, `Bool`, …) works. A key whose text does
/// not parse back to the same key is refused with a ``DefaultsError`` rather than stored under a name that
/// would read back differently, and so is a `nil` value.
///
/// ## Usage
/// ```swift
/// let scores = Key<[String: Int]>("scores", default: [:])
/// Defaults[key: scores]["ann"] = 3
/// ```
public struct DictionaryBridge<
    DictionaryKey: LosslessStringConvertible & Hashable,
    DictionaryValue: DefaultsSerializable
>:
    DefaultsBridge
{
    /// Creates the bridge.
    @inlinable
    public init() {}

    /// Decoding parses, so reads keep the decoded value.
    @inlinable
    public var decodesAtACost: Bool { true }

    /// Returns `.dictionary` of the values' stored forms; throws if a key or value has none.
    @inlinable
    public func serialize(_ value: [DictionaryKey: DictionaryValue]) throws -> PropertyListValue? {
        var entries: [String: PropertyListValue] = [:]
        entries.reserveCapacity(value.count)
        for (key, element) in value {
            let name = key.description
            guard DictionaryKey(name) == key else {
                throw DefaultsBridgeError("the dictionary key \(String(reflecting: key)) does not survive as text")
            }
            guard let item = try DictionaryValue.storedForm(of: element) else {
                throw DefaultsBridgeError(
                    "the value for \(String(reflecting: name)) is nil, and a <dict> cannot hold nil"
                )
            }
            entries[name] = item
        }
        return .dictionary(entries)
    }

    /// Returns the entries of a `.dictionary`; throws naming the first entry that does not fit.
    @inlinable
    public func deserialize(_ stored: PropertyListValue) throws -> [DictionaryKey: DictionaryValue]? {
        guard case .dictionary(let entries) = stored else { return nil }
        var result: [DictionaryKey: DictionaryValue] = [:]
        result.reserveCapacity(entries.count)
        for (name, item) in entries {
            guard let key = DictionaryKey(name) else {
                throw DefaultsBridgeError("the key \(String(reflecting: name)) is not a \(DictionaryKey.self)")
            }
            guard let element = try DictionaryValue.value(fromStoredForm: item) else {
                throw DefaultsBridgeError(
                    "the value for \(String(reflecting: name)) is \(item.summary), expected \(DictionaryValue.self)"
                )
            }
            result[key] = element
        }
        return result
    }
}

extension Optional: DefaultsSerializable where Wrapped: DefaultsSerializable {
    /// Stores `nil` as no value.
    @inlinable
    public static var bridge: OptionalBridge<Wrapped> { OptionalBridge() }
}

extension Array: DefaultsSerializable where Element: DefaultsSerializable {
    /// Stores arrays as `<array>`.
    @inlinable
    public static var bridge: ArrayBridge<Element> { ArrayBridge() }
}

extension Set: DefaultsSerializable where Element: DefaultsSerializable {
    /// Stores sets as `<array>`.
    @inlinable
    public static var bridge: SetBridge<Element> { SetBridge() }
}

extension Dictionary: DefaultsSerializable where Key: LosslessStringConvertible, Value: DefaultsSerializable {
    /// Stores dictionaries as `<dict>`.
    @inlinable
    public static var bridge: DictionaryBridge<Key, Value> { DictionaryBridge() }
}
