package import LocTrackFormats
import LocTrackProcess
import LocTrackSystem

/// `--publish udp://HOST[:PORT]`: each fix sent as UDP datagrams to a chart plotter, OpenCPN,
/// Signal K or any NMEA listener, as gpsd's `gps2udp` does: NMEA 0183 `RMC` and `GGA` (one
/// sentence per datagram), or one gpsd TPV per datagram with `--format json`.
///
/// UDP keeps nothing: no spool, no thread, no retry. A fix sent while nothing listens is
/// gone, and a listener that is not there costs the other sinks nothing.
package struct UDPSinkSpec: SinkSpec {
    /// NMEA 0183 over IP's usual port (IANA's `nmea-0183`; OpenCPN's and Signal K's default).
    package static let defaultPort: UInt16 = 10110

    package let host: String
    package let port: UInt16

    package init(host: String, port: UInt16 = defaultPort) {
        self.host = host
        self.port = port
    }

    /// `udp://HOST[:PORT]`, where HOST is a name, an IPv4 address or an IPv6 one in brackets.
    /// - Throws: the reason, for `--publish`'s one line.
    package init(parsing url: String) throws(SinkURLError) {
        guard url.hasPrefix("udp://") else { throw SinkURLError("the URL must start with udp://") }
        let authority = url.dropFirst("udp://".count)
        guard !authority.contains(where: { "/?#@".contains($0) }) else {
            throw SinkURLError("a udp:// URL is udp://HOST or udp://HOST:PORT, with no user, path or query")
        }
        let host: Substring, portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw SinkURLError("an IPv6 address needs its ']'") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let rest = authority[authority.index(after: close)...]
            guard rest.isEmpty || rest.hasPrefix(":") else { throw SinkURLError("a port follows ']' after ':'") }
            portText = rest.isEmpty ? nil : rest.dropFirst()
        } else {
            let parts = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            host = parts[0]
            portText = parts.count > 1 ? parts[1] : nil
        }
        guard !host.isEmpty else { throw SinkURLError("a udp:// URL needs a host: udp://HOST[:PORT]") }
        var port = Self.defaultPort
        if let portText {
            guard let number = UInt16(portText), number > 0 else {
                throw SinkURLError("the port must be a number from 1 to 65535, not '\(portText)'")
            }
            port = number
        }
        self.init(host: String(host), port: port)
    }

    /// NMEA's GGA carries the satellites used and the HDOP, and its talker the constellations:
    /// all from SKY. JSON datagrams (`--format json`) are TPVs alone, which need none.
    package func needs(writing format: OutputFormat?) -> SinkNeeds {
        format == .json ? [] : .satelliteReports
    }

    package func start(_ context: SinkStartContext) throws(SinkStartError) -> any Sink {
        do throws(DatagramSocketError) {
            return UDPSink(
                socket: try DatagramSocket(host: host, port: port), named: description,
                sendsJSON: context.formatGiven == .json)
        } catch {
            // A name that does not resolve is a service that is not there (as gpsd is, 69).
            throw SinkStartError("--publish \(description): \(error)", exitCode: .unavailable)
        }
    }

    /// `udp://HOST:PORT`, as the user gives it.
    package var description: String {
        host.contains(":") ? "udp://[\(host)]:\(port)" : "udp://\(host):\(port)"
    }
}
