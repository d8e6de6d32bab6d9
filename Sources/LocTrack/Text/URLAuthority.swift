/// The `HOST[:PORT]` part of the URLs loctrack takes (`mqtt://`, `http://`): one parser,
/// so that a broker and a Traccar server accept and refuse the same hosts and ports.
package enum URLAuthority {
    /// What is wrong with an authority; each URL type says it in its own words.
    package enum Problem: Error, Equatable, Sendable {
        case missingHost
        /// Not a name, an IPv4 address or a bracketed IPv6 address.
        case invalidHost(String)
        /// Not a number from 1 to 65535.
        case invalidPort(String)
    }

    /// Parses `HOST[:PORT]` or `[IPv6][:PORT]` (no user: the caller took it off).
    /// - Returns: the host (an IPv6 address without its brackets) and the port, nil when
    ///   the authority has none.
    package static func hostAndPort(_ text: Substring) throws(Problem) -> (host: String, port: Int?) {
        let host: Substring
        let portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw .invalidHost(String(text)) }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { throw .invalidHost(String(text)) }
            portText = after.isEmpty ? nil : after.dropFirst()
            guard !host.isEmpty else { throw .missingHost }
            guard isIPv6(host) else { throw .invalidHost(String(host)) }
        } else {
            let colon = text.firstIndex(of: ":")
            host = text[..<(colon ?? text.endIndex)]
            portText = colon.map { text[text.index(after: $0)...] }
            // A second colon: an IPv6 address without its brackets.
            guard portText?.contains(":") != true else { throw .invalidHost(String(text)) }
            guard !host.isEmpty else { throw .missingHost }
            guard isNameOrIPv4(host) else { throw .invalidHost(String(host)) }
        }
        guard let portText else { return (String(host), nil) }
        guard portText.allSatisfy(\.isASCIIDigit), portText.count <= 5, let port = Int(portText), (1...65_535).contains(port) else {
            throw .invalidPort(String(portText))
        }
        return (String(host), port)
    }

    /// `host` as a URL writes it: an IPv6 address in brackets.
    package static func bracketed(_ host: String) -> String {
        host.contains(":") ? "[\(host)]" : host
    }

    /// Hex digits, colons (at least two) and dots (an embedded IPv4 address).
    private static func isIPv6(_ text: Substring) -> Bool {
        text.filter { $0 == ":" }.count >= 2 && text.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
    }

    /// Dot-separated labels of letters, digits, `-` and `_`; all digits: four numbers 0 to 255.
    private static func isNameOrIPv4(_ text: Substring) -> Bool {
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        guard text.utf8.count <= 253, labels.allSatisfy({ !$0.isEmpty }) else { return false }
        if labels.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }) {
            return labels.count == 4 && labels.allSatisfy { $0.count <= 3 && Int($0)! <= 255 }
        }
        return labels.allSatisfy { label in
            label.allSatisfy { $0.isASCIIDigit || $0.isASCIILetter || $0 == "-" || $0 == "_" }
        }
    }
}

extension Character {
    package var isASCIIDigit: Bool { ("0"..."9").contains(self) }
    package var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
