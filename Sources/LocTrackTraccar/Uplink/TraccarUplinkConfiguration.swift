/// Everything a ``TraccarUplink`` needs, resolved: where to send, how to check TLS, and
/// the spool.
public struct TraccarUplinkConfiguration: Sendable {
    public var url: TraccarURL
    /// Verify an `https://` server against this CA file (PEM) instead of the system's CAs.
    public var caFile: String?
    /// The uplink's own spool folder: a spool belongs to one uplink (it is locked while
    /// open), so not one an MQTT publisher uses.
    public var spoolDirectory: String
    public var spoolLimitBytes: Int64
    /// Sent as `User-Agent` (`loctrack/VERSION`).
    public var userAgent: String
    /// How long a connection may take to open (TCP and TLS).
    public var connectTimeout: Duration = .seconds(10)
    /// How long one request may take in all, connecting included.
    public var requestTimeout: Duration = .seconds(30)
    /// How long a refused position (HTTP 4xx) waits before it is offered again.
    public var probeInterval: Duration = .seconds(30)

    public init(url: TraccarURL, caFile: String? = nil, spoolDirectory: String, spoolLimitBytes: Int64, userAgent: String = "loctrack") {
        self.url = url
        self.caFile = caFile
        self.spoolDirectory = spoolDirectory
        self.spoolLimitBytes = spoolLimitBytes
        self.userAgent = userAgent
    }
}
