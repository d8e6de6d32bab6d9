/// RFC 3986 percent-decoding, strict: every `%` must start two hex digits, and `+` stays
/// `+` (it is a space only in HTML forms, and the token or an id may hold a `+`).
/// One decoder for the broker URL's user and password (LocTrackMQTT) and serve's request
/// paths and queries (LocTrackWeb).
package enum PercentDecoding {
    /// The bytes `text` encodes, or nil when a `%` is not followed by two hex digits.
    package static func bytes(_ text: Substring) -> [UInt8]? {
        var result: [UInt8] = []
        result.reserveCapacity(text.utf8.count)
        var input = text.utf8.makeIterator()
        while let byte = input.next() {
            guard byte == UInt8(ascii: "%") else {
                result.append(byte)
                continue
            }
            guard let high = input.next().flatMap(hexValue), let low = input.next().flatMap(hexValue) else { return nil }
            result.append(high << 4 | low)
        }
        return result
    }

    /// The text `text` encodes, or nil when its encoding is broken or the bytes are not UTF-8.
    package static func string(_ text: Substring) -> String? {
        guard let bytes = bytes(text) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
