/// RFC 3986 percent-decoding, strict: every `%` must start two hex digits, and `+` stays
/// `+` (it is a space only in HTML forms, and the token or an id may hold a `+`).
enum PercentDecoding {
    /// The bytes `text` encodes, or nil when a `%` is not followed by two hex digits.
    static func bytes(_ text: Substring) -> [UInt8]? {
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
    static func string(_ text: Substring) -> String? {
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

/// A query string's `name=value` items, in order, as sent and decoded.
struct QueryItems {
    struct Item {
        /// As sent: what a redirect writes back.
        let raw: Substring
        /// Decoded; nil when the encoding is broken.
        let name: String?
        /// Decoded (empty for `name` without `=`); nil when the encoding is broken.
        let value: String?
    }

    let items: [Item]

    init(_ query: String) {
        items = query.split(separator: "&").map { raw in
            let equals = raw.firstIndex(of: "=")
            let name = raw[..<(equals ?? raw.endIndex)]
            let value = equals.map { raw[raw.index(after: $0)...] } ?? ""
            return Item(raw: raw, name: PercentDecoding.string(name), value: PercentDecoding.string(value))
        }
    }

    /// The items called `name` (decoded).
    func named(_ name: String) -> [Item] {
        items.filter { $0.name == name }
    }

    /// The query without the items called `name`, as sent (empty when nothing is left).
    func removing(_ name: String) -> String {
        items.filter { $0.name != name }.map { String($0.raw) }.joined(separator: "&")
    }
}
