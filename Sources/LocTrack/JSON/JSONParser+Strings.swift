extension JSONParser {
    /// Reads the string starting at the `"` at `offset`: escapes decoded, UTF-8 checked.
    mutating func parseString() throws(JSONSyntaxError) -> String {
        let start = offset
        offset += 1
        var utf8: [UInt8] = []
        while true {
            let runStart = offset
            while let byte = peek, byte >= 0x20, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") { offset += 1 }
            utf8.append(contentsOf: bytes[runStart..<offset])
            guard let byte = peek else { throw failure("expected '\"' to end the string that starts at byte \(start), found the end of the text") }
            if byte == UInt8(ascii: "\"") {
                offset += 1
                break
            }
            if byte < 0x20 {
                throw failure("expected control characters in a string to be escaped, found byte 0x\(hex(byte))")
            }
            try parseEscape(into: &utf8)
        }
        guard let text = String(validating: utf8, as: UTF8.self) else {
            throw JSONSyntaxError(offset: start, reason: "expected UTF-8 in the string, found invalid bytes")
        }
        return text
    }

    /// Decodes the escape at the `\` at `offset`, appending its UTF-8.
    private mutating func parseEscape(into utf8: inout [UInt8]) throws(JSONSyntaxError) {
        offset += 1
        guard let letter = peek else { throw failure("expected an escape after '\\', found the end of the text") }
        offset += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(letter)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            let escapeStart = offset - 2
            let scalar = try parseUnicodeEscape(startingAt: escapeStart)
            utf8.append(contentsOf: String(Character(scalar)).utf8)
        default:
            offset -= 1
            throw failure("expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u after '\\', found \(found)")
        }
    }

    /// The scalar of `\uXXXX` (the `\u` already read), or of a `\uD8xx\uDCxx` surrogate pair.
    private mutating func parseUnicodeEscape(startingAt escapeStart: Int) throws(JSONSyntaxError) -> Unicode.Scalar {
        let unit = try parseHexQuad()
        switch unit {
        case 0xD800...0xDBFF:
            guard consume(UInt8(ascii: "\\")), consume(UInt8(ascii: "u")) else {
                throw JSONSyntaxError(offset: escapeStart, reason: "expected a \\uDC00-\\uDFFF low surrogate after the high surrogate \\u\(hex16(unit))")
            }
            let low = try parseHexQuad()
            guard (0xDC00...0xDFFF).contains(low) else {
                throw JSONSyntaxError(offset: offset - 6, reason: "expected a \\uDC00-\\uDFFF low surrogate after \\u\(hex16(unit)), found \\u\(hex16(low))")
            }
            let value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            return Unicode.Scalar(value)!  // 0x10000...0x10FFFF: always a scalar
        case 0xDC00...0xDFFF:
            throw JSONSyntaxError(offset: escapeStart, reason: "expected a high surrogate before the low surrogate \\u\(hex16(unit))")
        default:
            return Unicode.Scalar(unit)!  // not a surrogate: always a scalar
        }
    }

    /// Four hexadecimal digits.
    private mutating func parseHexQuad() throws(JSONSyntaxError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let byte = peek, let digit = hexDigitValue(byte) else {
                throw failure("expected 4 hexadecimal digits after \\u, found \(found)")
            }
            value = value << 4 | UInt16(digit)
            offset += 1
        }
        return value
    }

    private func hexDigitValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private func hex16(_ unit: UInt16) -> String {
        let digits = String(unit, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}
