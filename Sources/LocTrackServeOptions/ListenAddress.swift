import LocTrackSystem
/// `serve --listen ADDR:PORT`: the one address the server answers on (docs/http.md).
///
/// Written as an IPv4 address (`192.168.1.5:8947`), an IPv6 address in brackets
/// (`[::1]:8947`), `localhost:PORT`, or a port alone (`8947`, on 127.0.0.1). Host names
/// other than `localhost` are refused: which address a name resolves to decides who can
/// connect, and that must be plain on the command line.
public struct ListenAddress: Equatable, Sendable, CustomStringConvertible {
    /// The host to bind, as written, without brackets: `127.0.0.1`, `::1`, `localhost`.
    public let host: String
    /// 1 to 65535.
    public let port: Int
    /// Whether only this computer can connect: 127.0.0.0/8, `::1` (also as
    /// `::ffff:127.x.x.x`) and `localhost`. Any other address needs a token.
    public let isLoopback: Bool

    public static let defaultPort = 8947
    /// `127.0.0.1:8947`.
    public static let `default` = ListenAddress(host: "127.0.0.1", port: defaultPort, isLoopback: true)

    /// Why a `--listen` value cannot be used: completes "expected …".
    public struct Invalid: Error, Equatable {
        public let expected: String
    }

    private init(host: String, port: Int, isLoopback: Bool) {
        self.host = host
        self.port = port
        self.isLoopback = isLoopback
    }

    public init(parsing text: String) throws(Invalid) {
        let form = Invalid(expected: "ADDR:PORT (1.2.3.4:PORT, [IPv6]:PORT, localhost:PORT) or a PORT alone")
        if !text.isEmpty, text.utf8.allSatisfy(Self.isDigit) {
            self.init(host: Self.default.host, port: try Self.port(Substring(text)), isLoopback: true)
            return
        }
        guard let colon = text.lastIndex(of: ":") else { throw form }
        let hostText = text[..<colon]
        let port = try Self.port(text[text.index(after: colon)...])
        if hostText.hasPrefix("["), hostText.hasSuffix("]") {
            let inner = hostText.dropFirst().dropLast()
            guard let bytes = Self.ipv6Bytes(inner) else {
                throw Invalid(expected: "an IPv6 address in brackets, as [::1]:PORT")
            }
            self.init(host: String(inner), port: port, isLoopback: Self.isLoopbackIPv6(bytes))
        } else if hostText == "localhost" {
            self.init(host: "localhost", port: port, isLoopback: true)
        } else if let bytes = Self.ipv4Bytes(hostText) {
            self.init(host: String(hostText), port: port, isLoopback: bytes[0] == 127)
        } else if hostText.contains(":") {
            throw Invalid(expected: "an IPv6 address in brackets, as [::1]:PORT")
        } else {
            throw form
        }
    }

    /// `host:port`, an IPv6 host in brackets: what the server says it listens on.
    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func port(_ text: Substring) throws(Invalid) -> Int {
        guard (1...5).contains(text.utf8.count), text.utf8.allSatisfy(isDigit), let port = Int(text), (1...65_535).contains(port)
        else { throw Invalid(expected: "a port from 1 to 65535") }
        return port
    }

    /// Four decimal numbers of 0 to 255, without leading zeros (which some parsers read
    /// as octal), or nil.
    static func ipv4Bytes(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.utf8.count), part.utf8.allSatisfy(isDigit),
                  part.utf8.count == 1 || part.utf8.first != UInt8(ascii: "0"),
                  let value = Int(part), value <= 255 else { return nil }
            bytes.append(UInt8(value))
        }
        return bytes
    }

    /// The 16 bytes of an IPv6 address in RFC 4291's text forms (one `::` at most, an
    /// IPv4 address in the last 32 bits allowed), or nil. Zone ids (`%eth0`) are refused.
    static func ipv6Bytes(_ text: Substring) -> [UInt8]? {
        guard !text.isEmpty, text.utf8.count <= 45 else { return nil }
        var head = text
        var tail: Substring?
        if let gap = text.range(ofLiteral: "::") {
            head = text[..<gap.lowerBound]
            let rest = text[gap.upperBound...]
            guard rest.range(ofLiteral: "::") == nil else { return nil }
            tail = rest
        }
        guard let headBytes = groups(head, endsAddress: tail == nil),
              let tailBytes = tail.map({ groups($0, endsAddress: true) }) ?? [] else { return nil }
        if tail == nil { return headBytes.count == 16 ? headBytes : nil }
        guard headBytes.count + tailBytes.count <= 14 else { return nil }
        return headBytes + [UInt8](repeating: 0, count: 16 - headBytes.count - tailBytes.count) + tailBytes
    }

    /// The bytes of `text`'s colon-separated groups (none for empty text); the last group
    /// of the address may be an IPv4 address.
    private static func groups(_ text: Substring, endsAddress: Bool) -> [UInt8]? {
        if text.isEmpty { return [] }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        var bytes: [UInt8] = []
        for (index, part) in parts.enumerated() {
            if endsAddress, index == parts.count - 1, part.contains(".") {
                guard let ipv4 = ipv4Bytes(part) else { return nil }
                bytes += ipv4
                continue
            }
            guard (1...4).contains(part.utf8.count), part.utf8.allSatisfy(\.isHexDigit),
                  let value = UInt16(part, radix: 16) else { return nil }
            bytes += [UInt8(value >> 8), UInt8(value & 0xFF)]
        }
        return bytes
    }

    /// `::1`, or an IPv4-mapped loopback address (`::ffff:127.0.0.1`).
    private static func isLoopbackIPv6(_ bytes: [UInt8]) -> Bool {
        let zeros = [UInt8](repeating: 0, count: 10)
        if bytes == zeros + [0, 0, 0, 0, 0, 1] { return true }
        return Array(bytes[..<12]) == zeros + [0xFF, 0xFF] && bytes[12] == 127
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
             UInt8(ascii: "A")...UInt8(ascii: "F"): true
        default: false
        }
    }
}
