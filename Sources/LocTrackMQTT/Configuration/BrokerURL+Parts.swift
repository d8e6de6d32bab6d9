import LocTrack

/// The host, port and user parts of a broker URL.
extension BrokerURL {
    /// `HOST[:PORT]` or `[IPv6][:PORT]`.
    static func hostAndPort(_ text: Substring, defaultPort: Int) throws(PublishConfigurationError) -> (String, Int) {
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
        guard let portText else { return (String(host), defaultPort) }
        guard portText.allSatisfy(\.isASCIIDigit), portText.count <= 5, let port = Int(portText), (1...65_535).contains(port) else {
            throw .invalidPort(String(portText))
        }
        return (String(host), port)
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

    /// `%XX` decoded as UTF-8 bytes; nil for a `%` without two hex digits or bytes that are not UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        PercentDecoding.string(text)
    }

    /// RFC 3986 userinfo without its `:`: unreserved characters and sub-delimiters as they
    /// are, every other byte as `%XX`.
    static func percentEncoded(_ text: String) -> String {
        let kept = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=".utf8)
        let digits = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in text.utf8 {
            if kept.contains(byte) {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
