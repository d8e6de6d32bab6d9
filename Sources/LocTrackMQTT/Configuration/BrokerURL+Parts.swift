import LocTrack

/// The host, port and user parts of a broker URL.
extension BrokerURL {
    /// `HOST[:PORT]` or `[IPv6][:PORT]` (LocTrack's ``URLAuthority``, which the Traccar URL
    /// shares), with `defaultPort` when it has none.
    static func hostAndPort(_ text: Substring, defaultPort: Int) throws(PublishConfigurationError) -> (String, Int) {
        do throws(URLAuthority.Problem) {
            let (host, port) = try URLAuthority.hostAndPort(text)
            return (host, port ?? defaultPort)
        } catch {
            switch error {
            case .missingHost: throw .missingHost
            case .invalidHost(let host): throw .invalidHost(host)
            case .invalidPort(let port): throw .invalidPort(port)
            }
        }
    }

    /// `%XX` decoded as UTF-8 bytes; nil for a `%` without two hex digits or bytes that are not UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        PercentDecoding.string(text)
    }

    /// RFC 3986 userinfo without its `:`: unreserved characters and sub-delimiters as they
    /// are, every other byte as `%XX`.
    static func percentEncoded(_ text: String) -> String {
        PercentEncoding.string(text, keeping: PercentEncoding.userinfo)
    }
}
