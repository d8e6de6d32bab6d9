/// Where gpsd is, and optionally which of its devices to watch.
///
/// Written as gpsd's own clients take it: `[host][:port[:device]]`, with IPv6
/// literals in brackets (`[::1]:2947`) and empty parts meaning the defaults
/// (`::/dev/ttyUSB0` is the local gpsd's `/dev/ttyUSB0`). A bare device path
/// (`/dev/ttyACM0`) means that device on the local gpsd.
public struct GPSDSource: Sendable, Hashable, CustomStringConvertible {
    public static let defaultHost = "localhost"
    public static let defaultPort = "2947"
    /// The local gpsd, all devices.
    public static let `default` = GPSDSource(host: defaultHost, port: defaultPort)

    public let host: String
    public let port: String
    /// The device to watch, or `nil` for all of gpsd's devices.
    public let device: String?

    public init(host: String = defaultHost, port: String = defaultPort, device: String? = nil) {
        self.host = host.isEmpty ? Self.defaultHost : host
        self.port = port.isEmpty ? Self.defaultPort : port
        self.device = (device?.isEmpty ?? true) ? nil : device
    }

    /// Parses `[host][:port[:device]]`.
    /// - Throws: ``LocTrackError`` with code `.invalidSource` and the reason.
    public init(parsing text: String) throws(LocTrackError) {
        func invalid(_ why: String) -> LocTrackError {
            LocTrackError(.invalidSource, reason: "'\(text)': \(why)")
        }
        if text.hasPrefix("/") {
            self.init(device: text)
            return
        }
        var host = ""
        var rest = Substring(text)
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw invalid("missing ']' after IPv6 address") }
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            guard !host.isEmpty else { throw invalid("empty IPv6 address") }
            rest = rest[rest.index(after: close)...]
            guard rest.isEmpty || rest.hasPrefix(":") else { throw invalid("expected ':' after ']'") }
            if !rest.isEmpty { rest = rest.dropFirst() }
        } else {
            let hostEnd = rest.firstIndex(of: ":") ?? rest.endIndex
            host = String(rest[..<hostEnd])
            rest = hostEnd == rest.endIndex ? "" : rest[rest.index(after: hostEnd)...]
        }
        let portEnd = rest.firstIndex(of: ":") ?? rest.endIndex
        let port = String(rest[..<portEnd])
        let device = portEnd == rest.endIndex ? "" : String(rest[rest.index(after: portEnd)...])
        if !port.isEmpty {
            guard let number = Int(port), (1...65535).contains(number) else {
                throw invalid("port must be a number from 1 to 65535")
            }
        }
        if !device.isEmpty && !device.hasPrefix("/") {
            throw invalid("device must be an absolute path such as /dev/ttyUSB0")
        }
        if host.contains(where: { $0 == " " || $0 == "/" }) || host.hasPrefix("-") {
            throw invalid("not a host name")
        }
        self.init(host: host, port: port, device: device)
    }

    /// `host:port` or `host:port:device`, IPv6 hosts in brackets.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return device.map { "\(shownHost):\(port):\($0)" } ?? "\(shownHost):\(port)"
    }
}
