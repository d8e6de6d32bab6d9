extension TrackRequest {
    /// Why a query is not one `/api/track` takes: the route answers `400` with ``reason``.
    public struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        /// One line, e.g. `max: expected a whole number from 1 to 20000, found "0"`.
        public let reason: String

        public init(_ reason: String) {
            self.reason = reason
        }

        public var description: String { reason }
    }

    /// Reads `/api/track`'s query as sent (percent-encoded, without the `?`): `since`,
    /// `max` and `format` (docs/http.md). Parameters it does not know (a cache-buster, the
    /// access token) are left to others; an empty value is the default; a parameter given
    /// twice counts with its last value.
    public init(query: String) throws(Invalid) {
        self.init()
        for parameter in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = parameter.firstIndex(of: UInt8(ascii: "="))
            let name = try Self.decoded(parameter[..<(equals ?? parameter.endIndex)])
            var value = ""
            if let equals { value = try Self.decoded(parameter[parameter.index(after: equals)...]) }
            switch name {
            case "since" where !value.isEmpty: since = try Self.since(value)
            case "max" where !value.isEmpty: maximumPoints = try Self.maximum(value)
            case "format" where !value.isEmpty:
                guard let format = Format(rawValue: value) else {
                    throw Invalid("format: expected points, geojson or gpx, found \(Self.quoted(value))")
                }
                self.format = format
            default: continue
            }
        }
    }

    /// `since`: seconds before now (`3600`, `90.5`), else an RFC 3339 time.
    private static func since(_ value: String) throws(Invalid) -> Since {
        if value.utf8.allSatisfy({ (0x30...0x39).contains($0) || $0 == 0x2E }) {
            // Up to ten digits before the point: more than 300 years, the whole track anyway.
            let parts = value.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count <= 2, let whole = parts.first, !whole.isEmpty, whole.utf8.count <= 10,
                  parts.count == 1 || !parts[1].isEmpty, let seconds = Double(value)
            else { throw Invalid("since: expected seconds (3600) or an RFC 3339 time, found \(quoted(value))") }
            return .secondsAgo(seconds)
        }
        guard let time = RFC3339.timestamp(value) else {
            throw Invalid("since: expected an RFC 3339 time (2026-11-24T08:00:00Z) or seconds, found \(quoted(value))")
        }
        return .time(time)
    }

    private static func maximum(_ value: String) throws(Invalid) -> Int {
        guard value.utf8.count <= 6, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              let number = Int(value), (1...largestMaximumPoints).contains(number)
        else { throw Invalid("max: expected a whole number from 1 to \(largestMaximumPoints), found \(quoted(value))") }
        return number
    }

    /// Percent-decoding (RFC 3986). A `+` stays a `+`: it is a space only in HTML forms,
    /// and a time's offset (`+01:00`) typed into an address keeps it.
    private static func decoded(_ bytes: Substring.UTF8View.SubSequence) throws(Invalid) -> String {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "%") else {
                result.append(byte)
                index = bytes.index(after: index)
                continue
            }
            let high = bytes.index(after: index)
            guard high < bytes.endIndex, bytes.index(after: high) < bytes.endIndex,
                  let upper = hexValue(bytes[high]), let lower = hexValue(bytes[bytes.index(after: high)])
            else { throw Invalid("malformed percent-encoding in the query") }
            result.append(upper << 4 | lower)
            index = bytes.index(index, offsetBy: 3)
        }
        guard let text = String(validating: result, as: UTF8.self) else {
            throw Invalid("the query is not UTF-8 once percent-decoded")
        }
        return text
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }

    /// A value for the reason line: quoted, cut at 40 characters, without control characters.
    private static func quoted(_ value: String) -> String {
        let shown = value.unicodeScalars.prefix(40).map { $0.properties.generalCategory == .control ? "?" : String($0) }.joined()
        return "\"\(shown)\(value.unicodeScalars.count > 40 ? "…" : "")\""
    }
}
