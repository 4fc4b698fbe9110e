import Foundation
import TypedDefaults

/// A `String` enum that is also `Codable`: stored by raw value.
public enum Theme: String, Codable, Sendable, ExactlyEqual, DefaultsSerializable {
    case light, dark, system
}

/// An `Int` enum: stored by raw value.
public enum Priority: Int, Sendable, ExactlyEqual, DefaultsSerializable {
    case low = 1
    case high = 2
    case urgent = -7
}

/// A `Codable` struct: stored as JSON.
public struct Profile: Codable, Equatable, Sendable, ExactlyEqual, DefaultsSerializable {
    /// A name.
    public var name: String
    /// Some tags.
    public var tags: [String]
    /// A date with a fractional second, which JSON must keep exactly.
    public var joined: Date

    /// Creates a profile.
    public init(name: String, tags: [String], joined: Date) {
        self.name = name
        self.tags = tags
        self.joined = joined
    }
}

/// A `Codable` struct holding a `Double`, which JSON cannot store when it is NaN.
public struct Reading: Codable, Equatable, Sendable, DefaultsSerializable {
    /// The reading.
    public var value: Double
    /// Creates a reading.
    public init(value: Double) { self.value = value }
}

/// A type with a custom bridge that stores it by name, as the README shows.
public struct Frog: Equatable, Sendable, ExactlyEqual {
    /// The frog's name, which is all that is stored.
    public var name: String
    /// Creates a frog.
    public init(name: String) { self.name = name }
}

/// Stores a ``Frog`` as its name.
public struct FrogBridge: DefaultsBridge {
    /// Creates the bridge.
    public init() {}
    /// Stores the name.
    public func serialize(_ frog: Frog) -> PropertyListValue? { .string(frog.name) }
    /// Reads a frog from its name.
    public func deserialize(_ stored: PropertyListValue) -> Frog? { stored.stringValue.map(Frog.init(name:)) }
}

extension Frog: DefaultsSerializable {
    /// Stores frogs by name.
    public static var bridge: FrogBridge { FrogBridge() }
}

/// An `NSSecureCoding` class: stored as a keyed archive.
public final class Bookmark: NSObject, NSSecureCoding, ExactlyEqual, DefaultsSerializable {
    /// The title.
    public let title: String
    /// The page.
    public let page: Int

    /// Creates a bookmark.
    public init(title: String, page: Int) {
        self.title = title
        self.page = page
    }

    /// Bookmarks decode only as bookmarks.
    public static var supportsSecureCoding: Bool { true }

    /// Encodes the title and page.
    public func encode(with coder: NSCoder) {
        coder.encode(title as NSString, forKey: "title")
        coder.encode(page, forKey: "page")
    }

    /// Decodes the title and page.
    public init?(coder: NSCoder) {
        guard let title = coder.decodeObject(of: NSString.self, forKey: "title") else { return nil }
        self.title = title as String
        self.page = coder.decodeInteger(forKey: "page")
    }

    /// Equal when title and page are.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? Bookmark else { return false }
        return title == other.title && page == other.page
    }

    /// Hashes title and page.
    public override var hash: Int { title.hashValue ^ page }

    /// `Bookmark(title, page n)`.
    public override var description: String { "Bookmark(\(title), page \(page))" }
}
