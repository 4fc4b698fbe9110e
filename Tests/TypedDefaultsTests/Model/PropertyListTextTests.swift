import Foundation
import Testing

@testable import TypedDefaults

/// The text rules that launch arguments, the `defaults` tool and the bridges share, each pinned once here.
@Suite("Text rules")
struct PropertyListTextTests {
    @Test("Booleans: YES/NO, Y/N, true/false, T/F and 1/0 in any case, and nothing else")
    func booleans() {
        for text in ["YES", "yes", "Y", "y", "True", "TRUE", "T", "t", "1"] {
            #expect(PropertyListValue.bool(fromText: text) == true, "\(text)")
        }
        for text in ["NO", "no", "N", "n", "False", "false", "F", "f", "0"] {
            #expect(PropertyListValue.bool(fromText: text) == false, "\(text)")
        }
        for text in ["2", " 1", "1 ", "42abc", "", "on", "tomato", "yep", "nope", "-1"] {
            #expect(PropertyListValue.bool(fromText: text) == nil, "\(String(reflecting: text))")
        }
    }

    @Test("integers: a sign and decimal digits, in the type's range; above Int64.max they are unsigned")
    func integers() {
        #expect(PropertyListValue.integer(fromText: "+3", as: Int.self) == 3)
        #expect(PropertyListValue.integer(fromText: "-42", as: Int8.self) == -42)
        #expect(PropertyListValue.integer(fromText: "300", as: Int8.self) == nil, "out of range, not wrapped")
        #expect(PropertyListValue.integer(fromText: "-1", as: UInt.self) == nil)
        for text in ["3.0", " 3", "3 ", "0x10", "1e3", "", "three"] {
            #expect(PropertyListValue.integer(fromText: text, as: Int64.self) == nil, "\(String(reflecting: text))")
            #expect(PropertyListValue.integer(fromText: text) == nil, "\(String(reflecting: text))")
        }
        #expect(PropertyListValue.integer(fromText: "-9223372036854775808") == .integer(.min))
        #expect(PropertyListValue.integer(fromText: "9223372036854775807") == .integer(.max))
        #expect(PropertyListValue.integer(fromText: "9223372036854775808") == .unsignedInteger(1 << 63))
        #expect(PropertyListValue.integer(fromText: "18446744073709551615") == .unsignedInteger(.max))
        #expect(PropertyListValue.integer(fromText: "18446744073709551616") == nil)
    }

    @Test("reals: Swift's Double syntax, infinities and NaN included, and -0.0 keeps its sign")
    func reals() throws {
        #expect(PropertyListValue.double(fromText: "0.5") == 0.5)
        #expect(PropertyListValue.double(fromText: "-3") == -3)
        #expect(PropertyListValue.double(fromText: "1e3") == 1000)
        #expect(PropertyListValue.double(fromText: "inf") == .infinity)
        #expect(PropertyListValue.double(fromText: "-infinity") == -.infinity)
        #expect(PropertyListValue.double(fromText: "nan")?.isNaN == true)
        let negativeZero = try #require(PropertyListValue.double(fromText: "-0.0"))
        #expect(negativeZero == 0 && negativeZero.sign == .minus)
        for text in [" 1", "1,5", "", "half"] {
            #expect(PropertyListValue.double(fromText: text) == nil, "\(String(reflecting: text))")
        }
    }

    @Test("dates: ISO 8601, with an offset or a space, and the way macOS prints them")
    func dates() {
        let date = Date(timeIntervalSinceReferenceDate: 785_406_365)  // 2025-11-21T08:26:05Z
        for text in [
            "2025-11-21T08:26:05Z", "2025-11-21 08:26:05Z", "2025-11-21T09:26:05+01:00", "2025-11-21 08:26:05 +0000",
            "2025-11-21 03:26:05 -0500",
        ] {
            #expect(PropertyListValue.date(fromText: text) == date, "\(text)")
        }
        #expect(PropertyListValue.date(fromText: "2025-11-21T08:26:05.25Z") == date + 0.25)
        for text in ["yesterday", "2025-11-21", "2025-11-21 08:26:05", "2025-11-21 08:26:05 +", ""] {
            #expect(PropertyListValue.date(fromText: text) == nil, "\(String(reflecting: text))")
        }
    }

    @Test("data: hexadecimal digits, bare, in <> or after 0x, spaces ignored")
    func data() {
        let bytes = Data([0x0A, 0x1B, 0xFF])
        for text in ["0a1bff", "0A1BFF", "<0a1b ff>", "0x0a1bff", " 0a 1b ff "] {
            #expect(PropertyListValue.data(fromHex: text) == bytes, "\(text)")
        }
        #expect(PropertyListValue.data(fromHex: "") == Data())
        for text in ["0a1", "xyz0", "0a-1"] { #expect(PropertyListValue.data(fromHex: text) == nil, "\(text)") }
    }

    @Test("URLs, UUIDs and decimals, bare or in JSON quotes")
    func foundationValues() {
        #expect(PropertyListValue.url(fromText: "https://a.b/c?d=1#e") == URL(string: "https://a.b/c?d=1#e"))
        #expect(PropertyListValue.url(fromText: "/tmp/a b.txt") == URL(fileURLWithPath: "/tmp/a b.txt"))
        #expect(PropertyListValue.url(fromText: #""https:\/\/x.y\/z""#) == URL(string: "https://x.y/z"))
        #expect(PropertyListValue.url(fromText: "") == nil)
        #expect(PropertyListValue.url(fromText: #""""#) == nil, "empty once unquoted")

        let id = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        #expect(PropertyListValue.uuid(fromText: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") == id)
        #expect(PropertyListValue.uuid(fromText: #""E621E1F8-C36C-495A-93FC-0C247A3E6E5F""#) == id)
        #expect(PropertyListValue.uuid(fromText: "E621E1F8") == nil)

        #expect(PropertyListValue.decimal(fromText: "19.99") == Decimal(string: "19.99"))
        #expect(PropertyListValue.decimal(fromText: "19,99") == nil, "no locale")
        #expect(PropertyListValue.decimal(fromText: "1.1x") == nil)

        #expect(PropertyListValue.unquotedJSONString(#""dark""#) == "dark")
        #expect(PropertyListValue.unquotedJSONString(#""a\nb""#) == "a\nb")
        #expect(PropertyListValue.unquotedJSONString("dark") == nil)
        #expect(PropertyListValue.unquotedJSONString(#"""#) == nil)
    }

    @Test("property-list text: old-style collections and data, and XML, when it starts with (, { or <")
    func propertyListText() {
        #expect(PropertyListValue(propertyListText: "(a, \"b c\")") == .array([.string("a"), .string("b c")]))
        #expect(
            PropertyListValue(propertyListText: "{ k = v; n = (1, 2); }")
                == .dictionary(["k": .string("v"), "n": .array([.string("1"), .string("2")])])
        )
        #expect(PropertyListValue(propertyListText: "\n\t (a)") == .array([.string("a")]), "after white space")
        #expect(PropertyListValue(propertyListText: "<0a1b>") == .data(Data([0x0A, 0x1B])))
        let xml = #"<?xml version="1.0"?><plist version="1.0"><array><integer>3</integer><true/></array></plist>"#
        #expect(PropertyListValue(propertyListText: xml) == .array([.integer(3), .bool(true)]))
        for text in ["abc", "3", #""quoted""#, "[1, 2]", "(a", "<b>bold</b>", #"{"a":1}"#, ""] {
            #expect(PropertyListValue(propertyListText: text) == nil, "\(String(reflecting: text))")
        }
    }

    @Test("JSON text: arrays and objects, never a bare number, string or null")
    func jsonText() {
        #expect(PropertyListValue(jsonText: #"["x", "y"]"#) == .array([.string("x"), .string("y")]))
        #expect(
            PropertyListValue(jsonText: #"{"a": [1, 2.5]}"#) == .dictionary(["a": .array([.integer(1), .double(2.5)])])
        )
        for text in ["3", #""x""#, "true", "null", "[null]", "[1,", "(a)"] {
            #expect(PropertyListValue(jsonText: text) == nil, "\(String(reflecting: text))")
        }
    }

    @Test("a plain value is property-list text, or else the string as it is")
    func plain() {
        #expect(PropertyListValue.plain("3") == .string("3"))
        #expect(PropertyListValue.plain("YES") == .string("YES"))
        #expect(PropertyListValue.plain(" (a, b)") == .array([.string("a"), .string("b")]))
        #expect(PropertyListValue.plain("(a") == .string("(a"), "text that does not parse stays a string")
        #expect(PropertyListValue.plain(#"["x"]"#) == .string(#"["x"]"#), "JSON is not property-list text")
    }

    @Test("readings for a reader: property-list text first, then the string, then JSON, stopping at the first taken")
    func readings() {
        func readings(of text: String) -> [PropertyListValue] {
            var offered: [PropertyListValue] = []
            let taken: Bool? = PropertyListValue.firstReading(ofText: text) { value -> Bool? in
                offered.append(value)
                return nil
            }
            #expect(taken == nil)
            return offered
        }
        #expect(readings(of: "(a, b)") == [.array([.string("a"), .string("b")]), .string("(a, b)")])
        #expect(readings(of: #"["a"]"#) == [.string(#"["a"]"#), .array([.string("a")])])
        #expect(readings(of: #"{"a":1}"#) == [.string(#"{"a":1}"#), .dictionary(["a": .integer(1)])])
        #expect(readings(of: "3.0") == [.string("3.0")], "no JSON number for a scalar")
        #expect(readings(of: #""3""#) == [.string(#""3""#)], "no unquoting for a scalar")

        let first = PropertyListValue.firstReading(ofText: "(a, b)") { $0 }
        #expect(first == .array([.string("a"), .string("b")]))
        let string = PropertyListValue.firstReading(ofText: "(a, b)") { $0.stringValue }
        #expect(string == "(a, b)")
    }
}
