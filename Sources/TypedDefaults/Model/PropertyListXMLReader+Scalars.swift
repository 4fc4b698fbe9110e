import Foundation

// The scalars of an XML property list: integers, reals, dates and the other values read from an element's text.
extension Parser {
    // MARK: Scalars

    /// An optional `-` and decimal digits: `.integer`, or `.unsignedInteger` above `Int64.max`.
    static func integer(_ text: UnsafeBufferPointer<UInt8>) -> PropertyListValue? {
        let negative = text.first == UInt8(ascii: "-")
        let digits = UnsafeBufferPointer(rebasing: text[(negative ? 1 : 0)...])
        guard !digits.isEmpty else { return nil }
        var magnitude: UInt64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            magnitude = sum
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return .integer(magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude))
        }
        return magnitude <= UInt64(Int64.max) ? .integer(Int64(magnitude)) : .unsignedInteger(magnitude)
    }

    /// A decimal number with an optional sign and exponent, or one of the spellings of infinity and NaN the
    /// writers use; a number too large for a `Double` is left to Foundation.
    static func real(_ text: UnsafeBufferPointer<UInt8>) -> PropertyListValue? {
        let string = String(decoding: text, as: UTF8.self)
        switch string {
        case "nan": return .double(.nan)
        case "inf", "+inf", "infinity", "+infinity": return .double(.infinity)
        case "-inf", "-infinity": return .double(-.infinity)
        default: break
        }
        var index = 0
        if index < text.count, text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-") { index += 1 }
        var digits = 0
        while index < text.count, isDigit(text[index]) {
            index += 1
            digits += 1
        }
        if index < text.count, text[index] == UInt8(ascii: ".") {
            index += 1
            while index < text.count, isDigit(text[index]) {
                index += 1
                digits += 1
            }
        }
        guard digits > 0 else { return nil }
        if index < text.count, text[index] == UInt8(ascii: "e") || text[index] == UInt8(ascii: "E") {
            index += 1
            if index < text.count, text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-") { index += 1 }
            let exponentStart = index
            while index < text.count, isDigit(text[index]) { index += 1 }
            guard index > exponentStart else { return nil }
        }
        guard index == text.count, let double = Double(string), double.isFinite else { return nil }
        return .double(double)
    }

    /// `yyyy-MM-ddTHH:mm:ssZ`, a real date and time in the years 1 to 9999 (proleptic Gregorian, as
    /// Foundation reads it).
    static func date(_ text: UnsafeBufferPointer<UInt8>) -> PropertyListValue? {
        guard text.count == 20, text[4] == UInt8(ascii: "-"), text[7] == UInt8(ascii: "-"),
            text[10] == UInt8(ascii: "T"), text[13] == UInt8(ascii: ":"), text[16] == UInt8(ascii: ":"),
            text[19] == UInt8(ascii: "Z"),
            let year = number(text, 0, 4), let month = number(text, 5, 2), let day = number(text, 8, 2),
            let hour = number(text, 11, 2), let minute = number(text, 14, 2), let second = number(text, 17, 2),
            year >= 1, (1...12).contains(month), day >= 1, hour < 24, minute < 60, second < 60
        else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard day <= lengths[month - 1] else { return nil }
        // Days since 0001-01-01, then since 2001-01-01 (730,485 days later). In 64 bits: the seconds of dates
        // before 1933 or after 2069 overflow a 32-bit `Int` (watchOS).
        let previous = Int64(year - 1)
        var days = previous * 365 + previous / 4 - previous / 100 + previous / 400
        days += Int64(lengths[..<(month - 1)].reduce(0, +) + day - 1) - 730_485
        let seconds = ((days * 24 + Int64(hour)) * 60 + Int64(minute)) * 60 + Int64(second)
        return .date(Date(timeIntervalSinceReferenceDate: Double(seconds)))
    }

    private static func number(_ text: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int? {
        var result = 0
        for byte in text[start..<(start + count)] {
            guard isDigit(byte) else { return nil }
            result = result * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return result
    }

    /// Base64 in groups of four, with `=` padding only at the end, and line breaks, tabs or spaces anywhere.
    static func data(_ text: UnsafeBufferPointer<UInt8>) -> PropertyListValue? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count / 4 * 3)
        var group: UInt32 = 0
        var count = 0
        var padding = 0
        for byte in text {
            let sextet: UInt32
            switch byte {
            case UInt8(ascii: " "), 0x09, 0x0A, 0x0D: continue
            case UInt8(ascii: "="):
                padding += 1
                sextet = 0
            default:
                guard padding == 0 else { return nil }
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): sextet = UInt32(byte - UInt8(ascii: "A"))
                case UInt8(ascii: "a")...UInt8(ascii: "z"): sextet = UInt32(byte - UInt8(ascii: "a")) + 26
                case UInt8(ascii: "0")...UInt8(ascii: "9"): sextet = UInt32(byte - UInt8(ascii: "0")) + 52
                case UInt8(ascii: "+"): sextet = 62
                case UInt8(ascii: "/"): sextet = 63
                default: return nil
                }
            }
            group = group << 6 | sextet
            count += 1
            if count == 4 {
                guard padding <= 2 else { return nil }
                bytes.append(UInt8(truncatingIfNeeded: group >> 16))
                if padding < 2 { bytes.append(UInt8(truncatingIfNeeded: group >> 8)) }
                if padding < 1 { bytes.append(UInt8(truncatingIfNeeded: group)) }
                group = 0
                count = 0
                // Nothing may follow a padded group.
                if padding > 0 { padding = 3 }
            }
        }
        guard count == 0 else { return nil }
        return .data(Data(bytes))
    }
}
