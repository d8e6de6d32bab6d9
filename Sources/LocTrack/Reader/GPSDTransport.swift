/// The reader's seam to gpsd: a connected, non-blocking socket it can poll and
/// send commands on. libgps's connection (``GPSDConnection``) is the real one;
/// the tests use a socketpair whose other end plays gpsd.
///
/// Closing is the transport's `deinit`. One thread uses it at a time.
protocol GPSDTransport: AnyObject {
    /// A non-blocking descriptor to poll and read gpsd's lines from.
    var descriptor: Int32 { get }
    /// Sends a complete gpsd command, such as `?WATCH={…};`.
    func send(_ command: String) throws(LocTrackError)
}

/// Opens transports. It may block (libgps's `gps_open` does, without a timeout),
/// so the reader calls it on a connector thread and waits with a deadline.
protocol GPSDConnector: Sendable {
    func connect(to source: GPSDSource) throws(LocTrackError) -> any GPSDTransport
}
