import LocTrack

/// Where to send positions: the URL a Traccar user already knows from the phone client,
/// the server's URL with the device's identifier, `http://HOST[:PORT][/PATH]?id=DEVICE`,
/// or `https://…` for TLS.
///
/// - HOST is a name, an IPv4 address or an IPv6 address in brackets (`[::1]`), as for
///   `mqtt://` (LocTrack's `URLAuthority`). PORT is 1 to 65535; when left out, the
///   scheme's (80, 443), as in any URL: Traccar's OsmAnd port is 5055, so a URL for it
///   names the port.
/// - `id` (or `deviceid`, Traccar's other name for it) is the device's identifier in
///   Traccar, percent-decoded; it must not be empty. A URL with both, or either twice, is
///   refused: which one Traccar would use is not for loctrack to guess.
/// - The rest is kept as written and sent with every position, as Traccar's phone client
///   does: a user and password (`user:secret@`, for a proxy in front of Traccar), the path
///   (`/` when none), and the query's other parameters, which Traccar stores as attributes.
/// - No fragment (`#…`): it is never sent to a server, so it would be lost without a word.
public struct TraccarURL: Sendable, Hashable, CustomStringConvertible {
    /// `https://`: TLS, checked against the system's CAs or `--cafile`.
    public let usesTLS: Bool
    /// `user[:password]` as written (percent-encoded), without the `@`; nil when none.
    let userinfo: String?
    /// A name, an IPv4 address, or an IPv6 address without its brackets.
    public let host: String
    /// The port as written; nil when the URL has none (the scheme's).
    public let port: Int?
    /// The path as written, from its `/`.
    public let path: String
    /// The device's identifier, percent-decoded.
    public let deviceID: String
    /// The query's parameters other than `id`/`deviceid`, as written, joined by `&`.
    public let otherParameters: String

    /// Parses `text`.
    /// - Throws: ``TraccarURLError`` saying what is wrong, in one line.
    public init(parsing text: String) throws(TraccarURLError) {
        let lowered = text.lowercased()
        var rest: Substring
        if lowered.hasPrefix("https://") {
            usesTLS = true
            rest = text.dropFirst("https://".count)
        } else if lowered.hasPrefix("http://") {
            usesTLS = false
            rest = text.dropFirst("http://".count)
        } else {
            throw .unsupportedScheme
        }
        if rest.contains("#") { throw .fragment }
        let query: Substring?
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        } else {
            query = nil
        }
        let slash = rest.firstIndex(of: "/")
        var authority = rest[..<(slash ?? rest.endIndex)]
        path = slash.map { String(rest[$0...]) } ?? "/"
        if let at = authority.lastIndex(of: "@") {
            userinfo = String(authority[..<at])
            authority = authority[authority.index(after: at)...]
        } else {
            userinfo = nil
        }
        do throws(URLAuthority.Problem) {
            (host, port) = try URLAuthority.hostAndPort(authority)
        } catch {
            switch error {
            case .missingHost: throw .missingHost
            case .invalidHost(let host): throw .invalidHost(host)
            case .invalidPort(let port): throw .invalidPort(port)
            }
        }
        (deviceID, otherParameters) = try Self.device(in: query ?? "")
    }

    /// The device's identifier and the other parameters of `query`.
    private static func device(in query: Substring) throws(TraccarURLError) -> (String, String) {
        var device: String?
        var others: [Substring] = []
        for parameter in query.split(separator: "&") {
            let name = parameter.prefix { $0 != "=" }
            guard name == "id" || name == "deviceid" else {
                others.append(parameter)
                continue
            }
            guard device == nil else { throw .repeatedDevice }
            guard let decoded = PercentDecoding.string(parameter.dropFirst(name.count + 1)) else {
                throw .invalidDevice(String(parameter))
            }
            guard !decoded.isEmpty else { throw .emptyDevice }
            device = decoded
        }
        guard let device else { throw .missingDevice }
        return (device, others.joined(separator: "&"))
    }

    /// What every request's URL starts with: the URL without the device, ending in `?` or
    /// in `&` after the other parameters, so that a position's query (which starts with
    /// its `id`) follows it.
    public var requestPrefix: String {
        var text = usesTLS ? "https://" : "http://"
        if let userinfo { text += userinfo + "@" }
        text += URLAuthority.bracketed(host)
        if let port { text += ":\(port)" }
        text += path + "?"
        if !otherParameters.isEmpty { text += otherParameters + "&" }
        return text
    }

    /// The URL as the user wrote it, less a password and the other parameters, for
    /// messages: `http://HOST:PORT/PATH`.
    public var description: String {
        var text = usesTLS ? "https://" : "http://"
        text += URLAuthority.bracketed(host)
        if let port { text += ":\(port)" }
        return text + path
    }

    /// The name of the uplink's spool folder under loctrack's default spool folder
    /// (`$XDG_STATE_HOME/loctrack/spool/`, as for MQTT's client ids): `traccar-DEVICE`,
    /// the device percent-encoded so that any identifier is one safe file name (`/` is
    /// `%2F`). By the device, not the server: positions recorded for a device go to it
    /// wherever its server moves.
    public var spoolFolderName: String {
        "traccar-" + PercentEncoding.string(deviceID, keeping: PercentEncoding.unreserved)
    }

    /// `HOST:PORT` as messages name the server (the scheme's port when none was written).
    public var server: String {
        URLAuthority.bracketed(host) + ":\(port ?? (usesTLS ? 443 : 80))"
    }
}
