import Foundation
import TypedDefaults

/// Turns `write`'s arguments (`-int 3`, `-array a b`, a plain value) into a stored value.
struct ValueParser {
    private var arguments: ArraySlice<String>

    init(_ arguments: ArraySlice<String>) {
        self.arguments = arguments
    }

    /// What a `write` asks for: a whole value, or additions to an existing array or dictionary.
    enum Write {
        case value(PropertyListValue)
        case arrayAdd([PropertyListValue])
        case dictionaryAdd([String: PropertyListValue])
    }

    mutating func parseWrite() throws(ToolError) -> Write {
        guard let first = arguments.first else { throw .usage("write needs a value") }
        let write: Write
        switch first {
        case "-array":
            arguments.removeFirst()
            write = .value(.array(try parseElements()))
        case "-array-add":
            arguments.removeFirst()
            write = .arrayAdd(try parseElements())
        case "-dict":
            arguments.removeFirst()
            write = .value(.dictionary(try parseEntries()))
        case "-dict-add":
            arguments.removeFirst()
            write = .dictionaryAdd(try parseEntries())
        default:
            write = .value(try parseOne())
        }
        guard arguments.isEmpty else {
            throw .usage("unexpected arguments after the value: \(arguments.joined(separator: " "))")
        }
        return write
    }

    private mutating func parseElements() throws(ToolError) -> [PropertyListValue] {
        var elements: [PropertyListValue] = []
        while !arguments.isEmpty { elements.append(try parseOne()) }
        return elements
    }

    private mutating func parseEntries() throws(ToolError) -> [String: PropertyListValue] {
        var entries: [String: PropertyListValue] = [:]
        while let key = arguments.popFirst() {
            guard !arguments.isEmpty else { throw .usage("the dictionary key \(String(reflecting: key)) has no value") }
            entries[key] = try parseOne()
        }
        return entries
    }

    /// One value: a type flag and its text, or a plain value (property-list text such as `(a,b)`, else a string).
    private mutating func parseOne() throws(ToolError) -> PropertyListValue {
        guard let first = arguments.popFirst() else { throw .usage("a value is missing") }
        let typeFlags = ["-string", "-int", "-integer", "-float", "-bool", "-boolean", "-date", "-data"]
        guard typeFlags.contains(first) else {
            try Self.checkNesting(first)
            return PropertyListValue.plain(first)
        }
        guard let text = arguments.popFirst() else { throw .usage("\(first) needs a value") }
        return try Self.typed(first, text)
    }

    /// Refuses property-list text nested deeper than a value may be: Foundation's parser gives up on it at some
    /// depth, and the text would otherwise be stored as a plain string without a word.
    static func checkNesting(_ text: String) throws(ToolError) {
        let limit = PropertyListValue.maximumDepth
        let opening = UInt8(ascii: "(")
        guard NestingCheck.nestsDeeper(text.utf8, than: limit, opening: opening, closing: UInt8(ascii: ")")) else {
            return
        }
        throw ToolError(
            status: .invalidValue,
            message: "the value nests more than \(limit) levels deep, the most a stored value may"
        )
    }

    /// A value of the type `flag` names, read by the library's text rules (the rules launch arguments follow).
    static func typed(_ flag: String, _ text: String) throws(ToolError) -> PropertyListValue {
        func invalid(_ what: String) -> ToolError {
            ToolError(status: .invalidValue, message: "\(String(reflecting: text)) is not \(what)")
        }
        switch flag {
        case "-string":
            return .string(text)
        case "-int", "-integer":
            guard let value = PropertyListValue.integer(fromText: text) else { throw invalid("an integer") }
            return value
        case "-float":
            guard let value = PropertyListValue.double(fromText: text) else { throw invalid("a number") }
            return .double(value)
        case "-bool", "-boolean":
            guard let value = PropertyListValue.bool(fromText: text) else {
                throw invalid("a Boolean (YES/NO, Y/N, true/false, T/F or 1/0, in either case)")
            }
            return .bool(value)
        case "-date":
            guard let value = PropertyListValue.date(fromText: text) else {
                throw invalid("a date (such as 2026-11-21T08:26:05Z or \"2026-11-21 08:26:05 +0000\")")
            }
            // A property-list <date> holds whole seconds, as macOS's `defaults` stores it.
            return .date(Date(timeIntervalSinceReferenceDate: value.timeIntervalSinceReferenceDate.rounded(.down)))
        default:  // -data
            guard let value = PropertyListValue.data(fromHex: text) else {
                throw invalid("hexadecimal data (such as 0a1b2c)")
            }
            return .data(value)
        }
    }
}
