import Foundation

/// The deepest a `Codable` value may nest; public as ``CodableBridge/maximumNestingDepth``.
let codableNestingLimit = 256

/// Refuses, before `JSONEncoder` runs, a value nested so deeply that encoding it could overflow the stack.
///
/// `JSONEncoder` recurses once per nested value, about 1.5 KB of stack each (measured on Linux, Swift 6.3), and
/// checks its own JSON depth limit (512) only after the recursion: a chain of some 5,000 values overflows an
/// 8 MB main thread, fewer on a smaller thread stack. This walk runs the value's `encode(to:)` against an encoder
/// that produces nothing and counts levels, throwing as soon as it passes the limit, while the stack is shallow.
///
/// A level is a keyed or unkeyed container inside another (a JSON object or array), or a value encoded through a
/// single-value container (which `JSONEncoder` also recurses into, without a JSON level to show for it). So the
/// count is never below the JSON depth, and the JSON written never nests deeper than the limit.
package enum NestingCheck {
    /// Throws ``NestingTooDeep`` if `value` nests deeper than `limit`; rethrows what its `encode(to:)` throws.
    static func check<Value: Encodable>(_ value: Value, limit: Int) throws {
        let walk = NestingWalk(limit: limit)
        try walk.encode(value, codingPath: [], depth: 0)
        // Also when the value's own `encode(to:)` swallowed the error (`try?`): the limit was still passed.
        try walk.throwIfTooDeep()
    }

    /// Whether JSON text nests `[` and `{` deeper than `limit`, stopping as soon as it does.
    ///
    /// Brackets inside strings do not count. Runs before `JSONDecoder`, which recurses once per level.
    static func jsonNestsDeeper(_ json: some Collection<UInt8>, than limit: Int) -> Bool {
        nestsDeeper(json, than: limit, opening: UInt8(ascii: "["), closing: UInt8(ascii: "]"))
    }

    /// Whether text nests `{` and `opening` deeper than `limit`, stopping as soon as it does: JSON's `[`, or
    /// old-style property-list text's `(`, which the `defaults` tool reads.
    ///
    /// Brackets inside `"` strings (with `\` escapes, as both write them) do not count.
    package static func nestsDeeper(
        _ text: some Collection<UInt8>,
        than limit: Int,
        opening: UInt8,
        closing: UInt8
    ) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in text {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case opening, UInt8(ascii: "{"):
                depth += 1
                if depth > limit { return true }
            case closing, UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return false
    }
}

/// A value nested deeper than the limit; `path` is where, in the coding keys' words.
struct NestingTooDeep: Error {
    var path: [String]
}

/// The state of one walk: the limit and, once passed, where.
final class NestingWalk {
    let limit: Int
    private var tooDeepAt: [String]?

    init(limit: Int) {
        self.limit = limit
    }

    func throwIfTooDeep() throws {
        if let tooDeepAt { throw NestingTooDeep(path: tooDeepAt) }
    }

    /// The coding path a container opened at `level` keeps.
    ///
    /// Containers cannot throw, so past the limit this notes where, and the next nested value throws. Past the
    /// limit the path is not kept any more: a loop opening containers one inside another would otherwise copy
    /// ever longer paths.
    func open(level: Int, codingPath: @autoclosure () -> [any CodingKey]) -> [any CodingKey] {
        guard level > limit else { return codingPath() }
        tooDeep(codingPath())
        return []
    }

    /// Walks a nested value whose containers will sit below `depth` levels.
    func encode<T: Encodable>(_ value: T, codingPath: @autoclosure () -> [any CodingKey], depth: Int) throws {
        // JSONEncoder writes these as one scalar (or a flat array) without recursing into them.
        if Self.isScalar(T.self) { return }
        try throwIfTooDeep()
        guard depth <= limit else {
            tooDeep(codingPath())
            try throwIfTooDeep()
            return
        }
        try value.encode(to: NestingEncoder(walk: self, codingPath: codingPath(), depth: depth))
        try throwIfTooDeep()
    }

    private func tooDeep(_ codingPath: @autoclosure () -> [any CodingKey]) {
        guard tooDeepAt == nil else { return }
        tooDeepAt = codingPath().prefix(CodingPathText.shownKeys + 1).map(CodingPathText.key)
    }

    private static func isScalar<T>(_ type: T.Type) -> Bool {
        type == String.self || type == Int.self || type == Double.self || type == Bool.self || type == Date.self
            || type == Data.self || type == URL.self || type == Decimal.self || type == Int64.self
            || type == Float.self || type == UInt.self || type == Int32.self || type == UInt64.self
            || type == UUID.self
    }
}

/// Coding paths in error messages: the first few keys, each cut short, never the whole path of a deep value.
enum CodingPathText {
    static let shownKeys = 4
    private static let keyLength = 32

    static func key(_ key: any CodingKey) -> String {
        let text = key.intValue.map { "[\($0)]" } ?? key.stringValue
        return text.count > keyLength ? String(text.prefix(keyLength)) + "…" : text
    }

    /// `a.b.[0].c`, or `a.b.[0].c.…` when there is more; `the top level` for an empty path.
    static func describe(_ keys: [String]) -> String {
        guard !keys.isEmpty else { return "the top level" }
        let shown = keys.prefix(shownKeys).joined(separator: ".")
        return keys.count > shownKeys ? shown + ".…" : shown
    }

    static func describe(_ codingPath: [any CodingKey]) -> String {
        describe(codingPath.prefix(shownKeys + 1).map(key))
    }
}

/// An encoder that writes nothing: it only lets ``NestingWalk`` count how deeply a value nests.
private struct NestingEncoder: Encoder {
    let walk: NestingWalk
    let codingPath: [any CodingKey]
    /// Levels above this value; its keyed and unkeyed containers are one deeper.
    let depth: Int

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(
            KeyedNestingContainer<Key>(
                walk: walk,
                codingPath: walk.open(level: depth + 1, codingPath: codingPath),
                level: depth + 1
            )
        )
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        UnkeyedNestingContainer(
            walk: walk,
            codingPath: walk.open(level: depth + 1, codingPath: codingPath),
            level: depth + 1
        )
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueNestingContainer(walk: walk, codingPath: codingPath, depth: depth)
    }
}

private struct NestingIndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

private struct NestingSuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }
    init() {}
    init?(stringValue: String) { nil }
    init?(intValue: Int) { nil }
}

private struct KeyedNestingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let walk: NestingWalk
    let codingPath: [any CodingKey]
    /// This container's level; values in it have their own containers one deeper.
    let level: Int

    mutating func encodeNil(forKey key: Key) throws {}
    mutating func encode(_ value: Bool, forKey key: Key) throws {}
    mutating func encode(_ value: String, forKey key: Key) throws {}
    mutating func encode(_ value: Double, forKey key: Key) throws {}
    mutating func encode(_ value: Float, forKey key: Key) throws {}
    mutating func encode(_ value: Int, forKey key: Key) throws {}
    mutating func encode(_ value: Int8, forKey key: Key) throws {}
    mutating func encode(_ value: Int16, forKey key: Key) throws {}
    mutating func encode(_ value: Int32, forKey key: Key) throws {}
    mutating func encode(_ value: Int64, forKey key: Key) throws {}
    mutating func encode(_ value: UInt, forKey key: Key) throws {}
    mutating func encode(_ value: UInt8, forKey key: Key) throws {}
    mutating func encode(_ value: UInt16, forKey key: Key) throws {}
    mutating func encode(_ value: UInt32, forKey key: Key) throws {}
    mutating func encode(_ value: UInt64, forKey key: Key) throws {}

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try walk.encode(value, codingPath: codingPath + [key], depth: level)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(
            KeyedNestingContainer<NestedKey>(
                walk: walk,
                codingPath: walk.open(level: level + 1, codingPath: codingPath + [key]),
                level: level + 1
            )
        )
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        UnkeyedNestingContainer(
            walk: walk,
            codingPath: walk.open(level: level + 1, codingPath: codingPath + [key]),
            level: level + 1
        )
    }

    mutating func superEncoder() -> any Encoder {
        NestingEncoder(walk: walk, codingPath: codingPath + [NestingSuperKey()], depth: level)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        NestingEncoder(walk: walk, codingPath: codingPath + [key], depth: level)
    }
}

private struct UnkeyedNestingContainer: UnkeyedEncodingContainer {
    let walk: NestingWalk
    let codingPath: [any CodingKey]
    let level: Int
    private(set) var count = 0

    init(walk: NestingWalk, codingPath: [any CodingKey], level: Int) {
        self.walk = walk
        self.codingPath = codingPath
        self.level = level
    }

    private var nextPath: [any CodingKey] { codingPath + [NestingIndexKey(intValue: count)] }

    mutating func encodeNil() throws { count += 1 }
    mutating func encode(_ value: Bool) throws { count += 1 }
    mutating func encode(_ value: String) throws { count += 1 }
    mutating func encode(_ value: Double) throws { count += 1 }
    mutating func encode(_ value: Float) throws { count += 1 }
    mutating func encode(_ value: Int) throws { count += 1 }
    mutating func encode(_ value: Int8) throws { count += 1 }
    mutating func encode(_ value: Int16) throws { count += 1 }
    mutating func encode(_ value: Int32) throws { count += 1 }
    mutating func encode(_ value: Int64) throws { count += 1 }
    mutating func encode(_ value: UInt) throws { count += 1 }
    mutating func encode(_ value: UInt8) throws { count += 1 }
    mutating func encode(_ value: UInt16) throws { count += 1 }
    mutating func encode(_ value: UInt32) throws { count += 1 }
    mutating func encode(_ value: UInt64) throws { count += 1 }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try walk.encode(value, codingPath: nextPath, depth: level)
        count += 1
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let path = walk.open(level: level + 1, codingPath: nextPath)
        count += 1
        return KeyedEncodingContainer(KeyedNestingContainer<NestedKey>(walk: walk, codingPath: path, level: level + 1))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = walk.open(level: level + 1, codingPath: nextPath)
        count += 1
        return UnkeyedNestingContainer(walk: walk, codingPath: path, level: level + 1)
    }

    mutating func superEncoder() -> any Encoder {
        let path = nextPath
        count += 1
        return NestingEncoder(walk: walk, codingPath: path, depth: level)
    }
}

private struct SingleValueNestingContainer: SingleValueEncodingContainer {
    let walk: NestingWalk
    let codingPath: [any CodingKey]
    /// The encoder's depth: a single value adds no JSON level of its own.
    let depth: Int

    mutating func encodeNil() throws {}
    mutating func encode(_ value: Bool) throws {}
    mutating func encode(_ value: String) throws {}
    mutating func encode(_ value: Double) throws {}
    mutating func encode(_ value: Float) throws {}
    mutating func encode(_ value: Int) throws {}
    mutating func encode(_ value: Int8) throws {}
    mutating func encode(_ value: Int16) throws {}
    mutating func encode(_ value: Int32) throws {}
    mutating func encode(_ value: Int64) throws {}
    mutating func encode(_ value: UInt) throws {}
    mutating func encode(_ value: UInt8) throws {}
    mutating func encode(_ value: UInt16) throws {}
    mutating func encode(_ value: UInt32) throws {}
    mutating func encode(_ value: UInt64) throws {}

    /// Counts a level: `JSONEncoder` recurses into the value, and a chain of such wrappers must end too.
    mutating func encode<T: Encodable>(_ value: T) throws {
        try walk.encode(value, codingPath: codingPath, depth: depth + 1)
    }
}
