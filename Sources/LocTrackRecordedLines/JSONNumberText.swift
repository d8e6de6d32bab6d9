/// The value of a JSON number's text, read without making a String of it.
///
/// Track files write numbers with a fixed number of decimals (`52.516290000`, `0.458`): at most
/// 19 digits and no exponent. Such a number is its digits as an integer divided by a power of
/// ten, and when both are exact in a `Double` (digits ≤ 2^53, at most 22 decimals) one IEEE
/// division rounds the quotient correctly (Clinger's fast path): the same `Double` as
/// `Double(String)`, which the JSON tree uses, gives. Anything else goes through
/// `Double(String)` itself.
package enum JSONNumberText {
    /// The number in `text`, which must already be JSON's number grammar; nil when it is beyond
    /// `Double`'s range (the tree refuses such a number as not JSON).
    package static func value(_ text: UnsafeRawBufferPointer) -> Double? {
        var index = 0
        let negative = text[0] == 0x2D
        if negative { index = 1 }
        var digits: UInt64 = 0
        var digitCount = 0
        var decimals = 0
        var inFraction = false
        while index < text.count {
            let byte = text[index]
            if byte == 0x2E {
                inFraction = true
            } else if byte >= 0x30, byte <= 0x39 {
                // Leading zeros count as digits here: `0.000123` has 7, which only sends
                // numbers that are rare in track files the slow way.
                digitCount += 1
                guard digitCount <= 19 else { return slowValue(text) }
                digits = digits &* 10 &+ UInt64(byte &- 0x30)
                if inFraction { decimals += 1 }
            } else {
                return slowValue(text)  // an exponent
            }
            index += 1
        }
        guard digits <= 1 << 53, decimals < powersOfTen.count else { return slowValue(text) }
        let magnitude = Double(digits) / powersOfTen[decimals]
        return negative ? -magnitude : magnitude
    }

    /// 10^0 … 10^22, every one exact in a `Double`.
    private static let powersOfTen: [Double] = (0...22).map { exponent in
        (0..<exponent).reduce(1.0) { value, _ in value * 10 }
    }

    /// `Double(String)`, correctly rounded; nil when not finite.
    package static func slowValue(_ text: UnsafeRawBufferPointer) -> Double? {
        guard let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else { return nil }
        return value
    }
}
