import Foundation
import TypedDefaults

/// A ``PropertyListValue`` in the JSON the table's `value` column holds: an object with one tag naming the type,
/// so that `psql` shows what is stored and every value comes back bit for bit.
///
/// Numbers are strings (`{"integer": "42"}`, `{"real": "-0.0"}`): a JSON number cannot carry `-0.0`, infinities,
/// NaN or the full range of `UInt64`, and `jsonb` would rewrite it. A real is Swift's shortest text that reads back
/// to the same bits; a NaN carries its bits. A date is its seconds since 2001 as such a real, beside a UTC
/// rendering for people.
struct StoredJSON: Codable, Sendable {
    let value: PropertyListValue

    init(_ value: PropertyListValue) {
        self.value = value
    }

    private enum Tag: String, CodingKey {
        case string, bool, integer, unsigned, real, data, date, utc, array, dictionary
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Tag.self)
        guard let tag = container.allKeys.first(where: { $0 != .utc }) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "no type tag"))
        }
        func text() throws -> String { try container.decode(String.self, forKey: tag) }
        func invalid(_ what: String) -> DecodingError {
            .dataCorruptedError(forKey: tag, in: container, debugDescription: "not \(what)")
        }
        switch tag {
        case .string:
            value = .string(try text())
        case .bool:
            value = .bool(try container.decode(Bool.self, forKey: tag))
        case .integer:
            guard let number = Int64(try text()) else { throw invalid("an integer") }
            value = .integer(number)
        case .unsigned:
            guard let number = UInt64(try text()) else { throw invalid("an unsigned integer") }
            value = .unsignedInteger(number)
        case .real:
            guard let number = Self.double(try text()) else { throw invalid("a real") }
            value = .double(number)
        case .data:
            guard let data = Data(base64Encoded: try text()) else { throw invalid("base64") }
            value = .data(data)
        case .date:
            guard let seconds = Self.double(try text()) else { throw invalid("seconds since 2001") }
            value = .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .array:
            value = .array(try container.decode([StoredJSON].self, forKey: tag).map(\.value))
        case .dictionary:
            value = .dictionary(try container.decode([String: StoredJSON].self, forKey: tag).mapValues(\.value))
        case .utc:
            throw invalid("a type tag")
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Tag.self)
        switch value {
        case .string(let string): try container.encode(string, forKey: .string)
        case .bool(let bool): try container.encode(bool, forKey: .bool)
        case .integer(let number): try container.encode(String(number), forKey: .integer)
        case .unsignedInteger(let number): try container.encode(String(number), forKey: .unsigned)
        case .double(let number): try container.encode(Self.text(number), forKey: .real)
        case .data(let data): try container.encode(data.base64EncodedString(), forKey: .data)
        case .date(let date):
            try container.encode(Self.text(date.timeIntervalSinceReferenceDate), forKey: .date)
            let utc = ISO8601DateFormatter()
            utc.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            try container.encode(utc.string(from: date), forKey: .utc)
        case .array(let elements): try container.encode(elements.map(StoredJSON.init), forKey: .array)
        case .dictionary(let entries): try container.encode(entries.mapValues(StoredJSON.init), forKey: .dictionary)
        }
    }

    /// Text that ``double(_:)`` reads back to the same bits.
    static func text(_ number: Double) -> String {
        number.isNaN ? "nan(0x\(String(number.bitPattern, radix: 16)))" : number.description
    }

    static func double(_ text: String) -> Double? {
        if text.hasPrefix("nan(0x"), text.hasSuffix(")") {
            return UInt64(text.dropFirst(6).dropLast(), radix: 16).map(Double.init(bitPattern:))
        }
        return Double(text)
    }
}

extension StoredJSON {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// The JSON text of `value`.
    static func encode(_ value: PropertyListValue) -> String {
        // Encoding a tree of strings, booleans, arrays and objects cannot fail.
        String(decoding: (try? encoder.encode(StoredJSON(value))) ?? Data(), as: UTF8.self)
    }

    /// The value of JSON text written by ``encode(_:)`` (or `jsonb`'s rendering of it).
    static func decode(_ text: String) throws -> PropertyListValue {
        try JSONDecoder().decode(StoredJSON.self, from: Data(text.utf8)).value
    }
}
