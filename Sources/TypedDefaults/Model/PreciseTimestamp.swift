import Foundation

/// ISO 8601 timestamps that round-trip a `Date` exactly.
///
/// `ISO8601DateFormatter` stops at milliseconds; a `Date` is a `Double`, so this writes the fraction of the
/// second with the fewest digits that parse back to the very same `Double`. Calendar arithmetic is the
/// proleptic Gregorian calendar in UTC (Howard Hinnant's `civil_from_days`), so no formatter, locale or time
/// zone is involved.
enum PreciseTimestamp {
    /// Seconds from 1970 to 2001, Foundation's reference date.
    private static let referenceOffset: Int64 = 978_307_200
    /// About ±950,000 years from 2001: within the six-digit years the parser reads back.
    private static let maximumMagnitude = 3.0e13

    static func string(from date: Date) -> String? {
        let interval = date.timeIntervalSinceReferenceDate
        guard interval.isFinite, abs(interval) < maximumMagnitude else { return nil }
        let whole = Int64(interval.rounded(.down))
        let fraction = fractionDigits(of: interval, whole: whole)

        let unixSeconds = whole + referenceOffset
        let days = unixSeconds.floorDivided(by: 86_400)
        let secondOfDay = unixSeconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)

        var text = year < 0 ? "-" + pad(-year, 4) : pad(year, 4)
        text += "-" + pad(month, 2) + "-" + pad(day, 2)
        text += "T" + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        if !fraction.isEmpty { text += "." + fraction }
        return text + "Z"
    }

    static func date(from text: String) -> Date? {
        var scanner = TimestampScanner(text.utf8)
        let negativeYear = scanner.take("-")
        guard let year = scanner.number(minDigits: 4, maxDigits: 6), scanner.take("-"),
            let month = scanner.number(digits: 2), scanner.take("-"),
            let day = scanner.number(digits: 2), scanner.take("T") || scanner.take(" "),
            let hour = scanner.number(digits: 2), scanner.take(":"),
            let minute = scanner.number(digits: 2), scanner.take(":"),
            let second = scanner.number(digits: 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }

        var fraction = ""
        if scanner.take(".") {
            guard let digits = scanner.digits() else { return nil }
            fraction = digits
        }
        var offset: Int64 = 0
        if scanner.take("Z") {
            // UTC
        } else if let sign = scanner.take("+") ? Int64(1) : scanner.take("-") ? -1 : nil,
            let offsetHours = scanner.number(digits: 2), scanner.take(":") || true,
            let offsetMinutes = scanner.number(digits: 2)
        {
            offset = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else {
            return nil
        }
        guard scanner.isAtEnd else { return nil }

        let days = days(fromCivil: negativeYear ? -year : year, month, day)
        let unixSeconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return interval(whole: unixSeconds - referenceOffset, fraction: fraction)
            .map(Date.init(timeIntervalSinceReferenceDate:))
    }

    /// The interval that whole seconds and fraction digits stand for.
    ///
    /// From 2001 on it is one correctly rounded parse of the decimal number, so the shortest digits that
    /// round-trip the `Double` come back exactly; before 2001 the whole seconds count down and the fraction up.
    private static func interval(whole: Int64, fraction: String) -> Double? {
        if fraction.isEmpty { return Double(whole) }
        if whole >= 0 { return Double("\(whole).\(fraction)") }
        return Double("0." + fraction).map { Double(whole) + $0 }
    }

    /// The fewest fraction digits that parse back (see ``interval(whole:fraction:)``) to exactly `interval`.
    private static func fractionDigits(of interval: Double, whole: Int64) -> String {
        guard interval != Double(whole) else { return "" }
        // Swift prints the shortest decimal that round-trips a `Double`: its fraction is the answer, when
        // it is printed without an exponent.
        if whole >= 0 {
            let text = interval.description
            if !text.contains("e"), let point = text.firstIndex(of: ".") {
                var digits = String(text[text.index(after: point)...])
                while digits.hasSuffix("0") { digits.removeLast() }
                if Self.interval(whole: whole, fraction: digits) == interval { return digits }
            }
        }
        let fraction = interval - Double(whole)
        var closest = ""
        for count in 1...20 {
            let formatted = String(format: "%.\(count)f", fraction)
            guard formatted.hasPrefix("0.") else { continue }
            closest = String(formatted.dropFirst(2))
            if Self.interval(whole: whole, fraction: closest) == interval { break }
        }
        // Trailing zeros say nothing.
        while closest.hasSuffix("0") { closest.removeLast() }
        return closest
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// Days since 1970-01-01 to a proleptic Gregorian date.
    private static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = z.floorDivided(by: 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// A proleptic Gregorian date to days since 1970-01-01.
    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = shiftedYear.floorDivided(by: 400)
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

/// Reads a timestamp's fields from its UTF-8 bytes.
private struct TimestampScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ text: String.UTF8View) { bytes = Array(text) }

    var isAtEnd: Bool { index == bytes.count }

    mutating func take(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    /// Up to `limit` decimal digits.
    mutating func digits(limit: Int = .max) -> String? {
        let start = index
        while index < bytes.count, index - start < limit,
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index])
        {
            index += 1
        }
        return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
    }

    mutating func number(digits count: Int) -> Int64? { number(minDigits: count, maxDigits: count) }

    mutating func number(minDigits: Int, maxDigits: Int) -> Int64? {
        let start = index
        guard let text = digits(limit: maxDigits), text.count >= minDigits else {
            index = start
            return nil
        }
        return Int64(text)
    }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
