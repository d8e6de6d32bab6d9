/// Where to publish: `mqtt://[USER@]HOST[:PORT]/TOPIC`, or `mqtts://…` for TLS.
///
/// - HOST is a name, an IPv4 address or an IPv6 address in brackets (`[::1]`).
/// - PORT is 1 to 65535; 1883 for `mqtt://`, 8883 for `mqtts://` when left out.
/// - TOPIC is everything after the first `/`, taken as written (no percent-decoding):
///   it may have levels (`owntracks/alice/car`), must not be empty, must not contain
///   the wildcards `+` and `#` or NUL, and must not start with `$` (brokers keep
///   `$SYS/…` for themselves).
/// - USER is percent-decoded as RFC 3986 says (`me%40example.org` is `me@example.org`).
///   A password in the URL (`user:secret@`) is refused: a command line shows in `ps`.
///   The password comes from `LOCTRACK_MQTT_PASSWORD` or `--password-file`
///   (``PublishOptions/password(environment:readFile:)``).
public struct BrokerURL: Sendable, Hashable, CustomStringConvertible {
    public static let defaultPort = 1883
    public static let defaultTLSPort = 8883
    /// MQTT strings, topics included, are at most 65535 bytes of UTF-8.
    static let maximumTopicBytes = 65_535

    /// `mqtts://`: TLS, checked against the system's CAs or `--cafile`.
    public let usesTLS: Bool
    /// The user name, percent-decoded; nil when the URL has none.
    public let user: String?
    /// A name, an IPv4 address, or an IPv6 address without its brackets.
    public let host: String
    public let port: Int
    public let topic: String

    /// Parses `text`.
    /// - Throws: ``PublishConfigurationError`` saying what is wrong, in one line.
    public init(parsing text: String) throws(PublishConfigurationError) {
        let lowered = text.lowercased()
        let rest: Substring
        if lowered.hasPrefix("mqtts://") {
            usesTLS = true
            rest = text.dropFirst("mqtts://".count)
        } else if lowered.hasPrefix("mqtt://") {
            usesTLS = false
            rest = text.dropFirst("mqtt://".count)
        } else {
            throw .unsupportedScheme
        }
        let slash = rest.firstIndex(of: "/")
        var authority = rest[..<(slash ?? rest.endIndex)]
        if let at = authority.lastIndex(of: "@") {
            user = try Self.user(authority[..<at])
            authority = authority[authority.index(after: at)...]
        } else {
            user = nil
        }
        (host, port) = try Self.hostAndPort(authority, defaultPort: usesTLS ? Self.defaultTLSPort : Self.defaultPort)
        guard let slash else { throw .missingTopic }
        topic = String(rest[rest.index(after: slash)...])
        try Self.check(topic: topic)
    }

    /// The URL with the port always written and the user re-encoded; never a password.
    public var description: String {
        var text = usesTLS ? "mqtts://" : "mqtt://"
        if let user { text += Self.percentEncoded(user) + "@" }
        text += host.contains(":") ? "[\(host)]" : host
        return text + ":\(port)/\(topic)"
    }

    private static func user(_ userinfo: Substring) throws(PublishConfigurationError) -> String {
        guard !userinfo.contains(":") else { throw .passwordInURL }
        guard !userinfo.isEmpty, let decoded = percentDecoded(userinfo), !decoded.contains("\0") else {
            throw .invalidUser
        }
        return decoded
    }

    private static func check(topic: String) throws(PublishConfigurationError) {
        guard !topic.isEmpty else { throw .missingTopic }
        if topic.contains("+") { throw .invalidTopic(reason: "contains '+', a wildcard: messages cannot be published to it") }
        if topic.contains("#") { throw .invalidTopic(reason: "contains '#', a wildcard: messages cannot be published to it") }
        if topic.contains("\0") { throw .invalidTopic(reason: "contains a NUL character") }
        if topic.hasPrefix("$") { throw .invalidTopic(reason: "starts with '$', which brokers keep for themselves") }
        if topic.utf8.count > maximumTopicBytes { throw .invalidTopic(reason: "is longer than 65535 bytes") }
    }
}
