import Foundation

// A property list's <real> holds one NaN: XML writes every NaN as `nan`, and every reader reads that back as
// the plain positive NaN. A NaN with a sign or a payload is stored as text that holds its bits instead.
extension FloatingPointBridge {
    /// The prefix of the text form of a NaN that is not the plain positive one: `nan:0x` and the value's bits
    /// in hexadecimal, as wide as the type (16 digits for a `Double`, 8 for a `Float`).
    @usableFromInline
    static var nanPrefix: String { "nan:0x" }

    /// The text form of `value` if it is a NaN that `.double` cannot carry to every reader; else `nil`.
    ///
    /// ```swift
    /// FloatingPointBridge<Double>.nanText(Double(bitPattern: 0x7ff0_0000_0000_0001))   // "nan:0x7ff0000000000001"
    /// FloatingPointBridge<Double>.nanText(-Double.nan)   // "nan:0xfff8000000000000"
    /// FloatingPointBridge<Double>.nanText(.nan)   // nil: stored as .double
    /// ```
    @usableFromInline
    static func nanText(_ value: Value) -> String? {
        guard value.isNaN, value.sign == .minus || value.significandBitPattern != Value.nan.significandBitPattern,
            let bits = bits(of: value)
        else { return nil }
        let digits = String(bits, radix: 16)
        return nanPrefix + String(repeating: "0", count: max(bitWidth / 4 - digits.count, 0)) + digits
    }

    /// The NaN that ``nanText(_:)`` wrote as `text`; `nil` for any other text.
    ///
    /// Bits written for another type (a `Float`'s read as a `Double`) give that type's NaN converted, as a
    /// stored number of one type reads as the other.
    @usableFromInline
    static func nan(fromText text: String) -> Value? {
        guard text.hasPrefix(nanPrefix) else { return nil }
        let hex = text.dropFirst(nanPrefix.count)
        guard !hex.isEmpty, hex.count <= 16, let bits = UInt64(hex, radix: 16) else { return nil }
        let value: Value
        if hex.count * 4 == bitWidth, bitWidth <= 64 {
            let significandMask = (UInt64(1) << UInt64(Value.significandBitCount)) - 1
            let exponentMask = (UInt64(1) << UInt64(Value.exponentBitCount)) - 1
            value = Value(
                sign: bits >> UInt64(Value.significandBitCount + Value.exponentBitCount) & 1 == 1 ? .minus : .plus,
                exponentBitPattern: Value.RawExponent(bits >> UInt64(Value.significandBitCount) & exponentMask),
                significandBitPattern: Value.RawSignificand(bits & significandMask)
            )
        } else if hex.count == 16 {
            value = Value(Double(bitPattern: bits))
        } else if hex.count == 8 {
            value = Value(Float(bitPattern: UInt32(bits)))
        } else {
            return nil
        }
        return value.isNaN ? value : nil
    }

    /// The bits of a type whose sign, exponent and significand fit in 64 bits: every type but `Float80`,
    /// whose NaNs are stored as `Double`s.
    private static var bitWidth: Int { 1 + Value.exponentBitCount + Value.significandBitCount }

    private static func bits(of value: Value) -> UInt64? {
        guard bitWidth <= 64 else { return nil }
        return UInt64(value.sign == .minus ? 1 : 0) << UInt64(Value.exponentBitCount + Value.significandBitCount)
            | UInt64(value.exponentBitPattern) << UInt64(Value.significandBitCount)
            | UInt64(value.significandBitPattern)
    }
}
