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
    public var name: String
    public var tags: [String]
    public var joined: Date

    public init(name: String, tags: [String], joined: Date) {
        self.name = name
        self.tags = tags
        self.joined = joined
    }
}

/// A `Codable` struct holding a `Double`, which JSON cannot store when it is NaN.
public struct Reading: Codable, Equatable, Sendable, DefaultsSerializable {
    public var value: Double
    public init(value: Double) { self.value = value }
}

/// A type with a custom bridge that stores it by name, as the README shows.
public struct Frog: Equatable, Sendable, ExactlyEqual {
    public var name: String
    public init(name: String) { self.name = name }
}

/// Stores a ``Frog`` as its name.
public struct FrogBridge: DefaultsBridge {
    public init() {}
    public func serialize(_ frog: Frog) -> PropertyListValue? { .string(frog.name) }
    public func deserialize(_ stored: PropertyListValue) -> Frog? { stored.stringValue.map(Frog.init(name:)) }
}

extension Frog: DefaultsSerializable {
    public static var bridge: FrogBridge { FrogBridge() }
}

/// An `NSSecureCoding` class: stored as a keyed archive.
public final class Bookmark: NSObject, NSSecureCoding, ExactlyEqual, DefaultsSerializable {
    public let title: String
    public let page: Int

    public init(title: String, page: Int) {
        self.title = title
        self.page = page
    }

    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        coder.encode(title as NSString, forKey: "title")
        coder.encode(page, forKey: "page")
    }

    public init?(coder: NSCoder) {
        guard let title = coder.decodeObject(of: NSString.self, forKey: "title") else { return nil }
        self.title = title as String
        self.page = coder.decodeInteger(forKey: "page")
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? Bookmark else { return false }
        return title == other.title && page == other.page
    }

    public override var hash: Int { title.hashValue ^ page }

    public override var description: String { "Bookmark(\(title), page \(page))" }
}
