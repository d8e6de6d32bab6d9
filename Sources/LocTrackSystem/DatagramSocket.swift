import Glibc

/// A UDP socket that sends datagrams to one address and never waits: what the UDP sink
/// (`--publish udp://HOST:PORT`) sends NMEA or JSON through.
///
/// The socket is not connected, so an ICMP "port unreachable" from a host where nothing
/// listens is never reported back to it (Linux reports those only on a connected socket):
/// a listener that is not there costs one datagram each, as it does gpsd's `gps2udp`.
/// `SO_BROADCAST` is set, so a subnet's broadcast address (`192.168.1.255`) works too, as
/// chart plotters on a boat's network are often fed.
package final class DatagramSocket: Sendable {
    private let descriptor: FileDescriptor
    /// The resolved `sockaddr`, as bytes (a `sockaddr_in` or `sockaddr_in6`).
    private let address: [UInt8]

    /// Resolves `host` (a name, an IPv4 or an IPv6 address) and opens a socket of its family.
    /// The C functions are `getaddrinfo(3)`, `socket(2)` and `setsockopt(2)`.
    package init(host: String, port: UInt16) throws(DatagramSocketError) {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &found)
        guard status == 0, let first = found else {
            throw .unresolved(host: host, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(found) }
        address = Array(UnsafeRawBufferPointer(start: first.pointee.ai_addr, count: Int(first.pointee.ai_addrlen)))
        let raw = socket(first.pointee.ai_family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard raw >= 0 else { throw .socket(.current) }
        descriptor = FileDescriptor(owning: raw)
        var on: Int32 = 1
        guard setsockopt(raw, SOL_SOCKET, SO_BROADCAST, &on, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw .socket(.current)
        }
    }

    /// Sends `bytes` as one datagram, without waiting (`MSG_DONTWAIT`): a full send buffer
    /// fails with ``Errno/wouldBlock`` rather than holding up the caller.
    /// The C function is `sendto(2)`, retried on EINTR.
    package func send(_ bytes: UnsafeRawBufferPointer) throws(Errno) {
        let descriptor = self.descriptor.rawValue
        let sent = address.withUnsafeBytes { address in
            sendto(
                descriptor, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL),
                address.baseAddress?.assumingMemoryBound(to: sockaddr.self), socklen_t(address.count))
        }
        guard sent < 0 else { return }
        let error = Errno.current
        // A signal before anything was sent: once more (a datagram goes whole or not at all).
        guard error == .interrupted else { throw error }
        try send(bytes)
    }
}

/// Why a ``DatagramSocket`` could not be opened.
package enum DatagramSocketError: Error, Equatable, CustomStringConvertible {
    /// The host name has no address (`getaddrinfo`'s own text).
    case unresolved(host: String, reason: String)
    case socket(Errno)

    package var description: String {
        switch self {
        case .unresolved(let host, let reason): "cannot resolve \(host): \(reason)"
        case .socket(let error): "cannot open a UDP socket: \(error)"
        }
    }
}
