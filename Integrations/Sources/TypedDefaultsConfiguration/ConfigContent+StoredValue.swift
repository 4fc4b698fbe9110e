import Configuration
import Foundation
import TypedDefaults

extension PropertyListValue {
    /// The value read as `type`, as a TypedDefaults key of the matching Swift type reads it; throws
    /// ``DefaultsProviderError/valueNotConvertible(key:type:stored:)`` when it does not read as one.
    ///
    /// The library's own bridges do the reading, so a value reads the same through a `ConfigReader` as through
    /// a `Key<Int>` or `Key<[String]>`: an int is a stored integer, a real with an integral value (`5.0`) or
    /// integer text (`"5"`, as `defaults write app key 5` stores it); a double is a real or an integer, or
    /// number text; a bool is a Boolean, the integers 0 and 1 or `YES`/`NO`-style text; a string is only a
    /// string; bytes are data. An array type reads a stored array whose every element reads as the element type.
    func configContent(as type: ConfigType, key: String) throws(DefaultsProviderError) -> ConfigContent {
        let content: ConfigContent?
        switch type {
        case .string: content = read(String.self).map(ConfigContent.string)
        case .int: content = read(Int.self).map(ConfigContent.int)
        case .double: content = read(Double.self).map(ConfigContent.double)
        case .bool: content = read(Bool.self).map(ConfigContent.bool)
        case .bytes: content = read(Data.self).map { .bytes([UInt8]($0)) }
        case .stringArray: content = read([String].self).map(ConfigContent.stringArray)
        case .intArray: content = read([Int].self).map(ConfigContent.intArray)
        case .doubleArray: content = read([Double].self).map(ConfigContent.doubleArray)
        case .boolArray: content = read([Bool].self).map(ConfigContent.boolArray)
        case .byteChunkArray: content = read([Data].self).map { .byteChunkArray($0.map { [UInt8]($0) }) }
        }
        guard let content else { throw .valueNotConvertible(key: key, type: type, stored: kindDescription) }
        return content
    }

    /// The value as a `Value`, or `nil`; a bridge's error is a mismatch like any other, and its message (which
    /// may quote the value) is not passed on.
    private func read<Value: DefaultsSerializable>(_: Value.Type) -> Value? {
        (try? Value.value(fromStoredForm: self)) ?? nil
    }

    /// What kind of value this is, without the value itself.
    var kindDescription: String {
        switch self {
        case .string: "a string"
        case .bool: "a Boolean"
        case .integer, .unsignedInteger: "an integer"
        case .double: "a real"
        case .data: "data"
        case .date: "a date"
        case .array: "an array"
        case .dictionary: "a dictionary"
        }
    }
}
