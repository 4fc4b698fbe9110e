import Foundation

/// Writes a suite's values as an XML property list, in the layout Foundation writes.
///
/// `PropertyListSerialization` would first turn every value into a Foundation object, which costs more than
/// the rest of a write; this writes the bytes straight from the values. Readers see no difference: the same
/// header, tags, indentation, sorted keys and Base64 lines. Reals are written with the fewest digits that
/// read back exactly (Foundation writes 17), and `-0.0` keeps its sign. A carriage return is written as
/// `&#xD;`: XML readers such as Python's `plistlib` turn a literal one into a line feed, a reference they
/// keep (Foundation's reader keeps both).
///
/// `package`: `defaults export` writes with it too, so an export is byte for byte the suite's file.
package enum PropertyListXML {
    /// The XML property list of a suite's values, as its file holds them.
    package static func data(_ values: [String: PropertyListValue]) -> Data {
        Data(Image(values).bytes)
    }

    static let header = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """

    static func write(_ value: PropertyListValue, depth: Int, into output: inout [UInt8]) {
        switch value {
        case .string(let string):
            escapedElement(.string, string, into: &output)
        case .bool(let bool):
            output.append(contentsOf: (bool ? "<true/>" : "<false/>").utf8)
        case .integer(let integer):
            element(.integer, text: String(integer), into: &output)
        case .unsignedInteger(let integer):
            element(.integer, text: String(integer), into: &output)
        case .double(let double):
            let text: String =
                double.isNaN ? "nan" : double.isInfinite ? (double < 0 ? "-infinity" : "+infinity") : "\(double)"
            element(.real, text: text, into: &output)
        case .date(let date):
            // A <date> holds whole seconds; TypedDefaults' own dates are strings, so only foreign ones get here.
            let whole = Date(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate.rounded(.down))
            element(.date, text: PreciseTimestamp.string(from: whole) ?? "2001-01-01T00:00:00Z", into: &output)
        case .data(let data):
            output.append(contentsOf: "<data>\n".utf8)
            let encoded = Array(data.base64EncodedString().utf8)
            var start = 0
            while start < encoded.count {
                indent(depth, into: &output)
                output.append(contentsOf: encoded[start..<min(start + 68, encoded.count)])
                output.append(UInt8(ascii: "\n"))
                start += 68
            }
            indent(depth, into: &output)
            output.append(contentsOf: "</data>".utf8)
        case .array(let items):
            guard !items.isEmpty else { return output.append(contentsOf: "<array/>".utf8) }
            output.append(contentsOf: "<array>\n".utf8)
            for item in items {
                indent(depth + 1, into: &output)
                write(item, depth: depth + 1, into: &output)
                output.append(UInt8(ascii: "\n"))
            }
            indent(depth, into: &output)
            output.append(contentsOf: "</array>".utf8)
        case .dictionary(let entries):
            guard !entries.isEmpty else { return output.append(contentsOf: "<dict/>".utf8) }
            output.append(contentsOf: "<dict>\n".utf8)
            for key in entries.keys.sorted() {
                writeEntry(key, entries[key]!, depth: depth + 1, into: &output)
            }
            indent(depth, into: &output)
            output.append(contentsOf: "</dict>".utf8)
        }
    }

    /// One entry of a dictionary: its key and its value, each on a line of its own.
    static func writeEntry(_ key: String, _ value: PropertyListValue, depth: Int, into output: inout [UInt8]) {
        indent(depth, into: &output)
        escapedElement(.key, key, into: &output)
        output.append(UInt8(ascii: "\n"))
        indent(depth, into: &output)
        write(value, depth: depth, into: &output)
        output.append(UInt8(ascii: "\n"))
    }

    /// An element's tags, as bytes made once: writing is much of the cost of a large suite's every write.
    private struct Tag {
        let open: [UInt8]
        let close: [UInt8]

        init(_ name: String) {
            open = Array("<\(name)>".utf8)
            close = Array("</\(name)>".utf8)
        }

        static let string = Tag("string")
        static let key = Tag("key")
        static let integer = Tag("integer")
        static let real = Tag("real")
        static let date = Tag("date")
    }

    private static func element(_ tag: Tag, text: String, into output: inout [UInt8]) {
        output.append(contentsOf: tag.open)
        output.append(contentsOf: text.utf8)
        output.append(contentsOf: tag.close)
    }

    /// An element whose text needs `&`, `<` and `>` escaped, as Foundation escapes them, and carriage returns.
    private static func escapedElement(_ tag: Tag, _ text: String, into output: inout [UInt8]) {
        output.append(contentsOf: tag.open)
        var text = text
        text.withUTF8 { text in
            // Most text has nothing to escape, and is copied in one piece.
            var start = 0
            for index in text.indices {
                let escape: StaticString
                switch text[index] {
                case UInt8(ascii: "&"): escape = "&amp;"
                case UInt8(ascii: "<"): escape = "&lt;"
                case UInt8(ascii: ">"): escape = "&gt;"
                case UInt8(ascii: "\r"): escape = "&#xD;"
                default: continue
                }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: text[start..<index]))
                output.append(contentsOf: UnsafeBufferPointer(start: escape.utf8Start, count: escape.utf8CodeUnitCount))
                start = index + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: text[start...]))
        }
        output.append(contentsOf: tag.close)
    }

    private static func indent(_ depth: Int, into output: inout [UInt8]) {
        output.append(contentsOf: repeatElement(UInt8(ascii: "\t"), count: depth))
    }
}
