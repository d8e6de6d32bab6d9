import LocTrackSystem
/// `serve --tiles URL-TEMPLATE [--tiles-attribution TEXT]`: where the page's browser fetches
/// base map tiles (docs/serve.md). Without it the page has no base map and fetches nothing.
///
/// The template is Leaflet's: `https://tile.example.org/{z}/{x}/{y}.png`, with `{s}` allowed
/// as the host's first label (`https://{s}.tile.example.org/…`). Its origin is the one
/// place outside the server the page's Content-Security-Policy lets images come from, so
/// it must be plain: http(s), a host, no user name or password.
public struct TileSource: Equatable, Sendable {
    /// The URL template as given.
    public let template: String
    /// `--tiles-attribution`: shown on the map as text (empty: none given).
    public let attribution: String
    /// The template's origin as a CSP source: `https://tile.example.org`, or
    /// `https://*.tile.example.org` for a `{s}` host.
    public let origin: String

    /// Why a `--tiles` or `--tiles-attribution` value cannot be used: completes "expected …".
    public struct Invalid: Error, Equatable {
        public let option: String
        public let expected: String
    }

    public static let longestAttribution = 500

    public init(template: String, attribution: String = "") throws(Invalid) {
        func invalid(_ expected: String) -> Invalid { Invalid(option: "--tiles", expected: expected) }
        let scheme: String
        if template.hasPrefix("https://") {
            scheme = "https"
        } else if template.hasPrefix("http://") {
            scheme = "http"
        } else {
            throw invalid("an http:// or https:// URL template")
        }
        // Printable ASCII without the characters a URL never holds unencoded: the template
        // goes into JSON and its origin into a header.
        guard template.utf8.count <= 2_048,
              template.utf8.allSatisfy({ (0x21...0x7E).contains($0) && !Array(#""<>\^`|"#.utf8).contains($0) })
        else { throw invalid("a URL template of printable characters without blanks, quotes, <, >, \\, ^, ` or |") }
        guard ["{z}", "{x}", "{y}"].allSatisfy({ template.range(ofLiteral: $0) != nil }) else {
            throw invalid("a URL template with {z}, {x} and {y}")
        }
        let afterScheme = template.dropFirst(scheme.utf8.count + 3)
        let authority = afterScheme.prefix { !"/?#".contains($0) }
        guard let host = Self.cspHost(authority) else {
            throw invalid("a URL template whose host is a name, an IP address or {s}.NAME, with an optional port")
        }
        guard !attribution.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }),
              attribution.utf8.count <= Self.longestAttribution else {
            throw Invalid(option: "--tiles-attribution",
                          expected: "at most \(Self.longestAttribution) bytes of text without control characters")
        }
        self.template = template
        self.attribution = attribution
        self.origin = scheme + "://" + host
    }

    /// `authority` (host and optional port) as a CSP host source, `{s}.` becoming `*.`;
    /// nil when it is anything else (a user name, an empty host, other placeholders).
    private static func cspHost(_ authority: Substring) -> String? {
        var host = authority
        var prefix = ""
        if host.hasPrefix("{s}.") {
            host = host.dropFirst(4)
            prefix = "*."
        }
        var port: Substring = ""
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]"),
                  ListenAddress.ipv6Bytes(host[host.index(after: host.startIndex)..<close]) != nil, prefix.isEmpty
            else { return nil }
            port = host[host.index(after: close)...]
            host = host[...close]
        } else if let colon = host.firstIndex(of: ":") {
            port = host[colon...]
            host = host[..<colon]
        }
        if !port.isEmpty {
            let digits = port.dropFirst()
            guard port.first == ":", (1...5).contains(digits.utf8.count),
                  digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                  let number = Int(digits), (1...65_535).contains(number) else { return nil }
        }
        if !host.hasPrefix("[") {
            let labels = host.split(separator: ".", omittingEmptySubsequences: false)
            guard !host.isEmpty, labels.allSatisfy({ label in
                !label.isEmpty && label.utf8.count <= 63
                    && label.utf8.allSatisfy { byte in
                        byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                            || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
                    }
            }) else { return nil }
        }
        return prefix + host + port
    }
}
