import LocTrack

/// A request's path, checked before it is looked up: only an exact listed path is ever
/// served, and nothing here is a file name (the assets are a fixed list in memory).
enum RequestPath {
    /// No listed path is nearly this long.
    static let longest = 256

    /// The path `raw` (as sent, percent-encoded) names, or nil when it is one no listed path
    /// can be: too long, not absolute, broken percent-encoding, an encoded `/` or `\`,
    /// or any byte that is not printable ASCII once decoded (NUL, controls, and non-ASCII
    /// bytes, among them overlong UTF-8 such as `%c0%ae`). Nothing is normalised: `//`,
    /// `/./` and `/../` stay as they are, and so match nothing.
    static func decoded(_ raw: String) -> String? {
        guard raw.utf8.count <= longest, raw.utf8.first == UInt8(ascii: "/"),
              let bytes = PercentDecoding.bytes(raw[...]),
              bytes.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        // `%2F` and `%5C` are not the separators they decode to (RFC 3986 section 2.2).
        let lowered = raw.lowercased()
        guard lowered.firstRange(of: "%2f") == nil, lowered.firstRange(of: "%5c") == nil else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
