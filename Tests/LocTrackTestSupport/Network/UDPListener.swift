import Glibc
import Synchronization

/// A UDP socket bound to 127.0.0.1 on a port of its own, whose datagrams the test reads
/// whole: what a listener of `--publish udp://` gets, one datagram at a time.
package final class UDPListener: Sendable {
    package let port: Int
    private let descriptor: Int32
    private let received = Mutex<[[UInt8]]>([])

    package init() throws {
        (descriptor, port) = try Self.bound()
    }

    deinit { close(descriptor) }

    /// Every datagram received so far, in order (reads what has arrived, without waiting).
    package var datagrams: [[UInt8]] {
        received.withLock { received in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                guard count >= 0 else { break }
                received.append(Array(buffer[..<count]))
            }
            return received
        }
    }

    /// A UDP port on 127.0.0.1 that nothing is bound to now (bound, read, closed), for a
    /// program that binds it next (gpsd's `udp://` source) or for a listener that is not there.
    package static func freePort() throws -> Int {
        let (descriptor, port) = try bound()
        close(descriptor)
        return port
    }

    private static func bound() throws -> (Int32, Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = descriptor >= 0 && withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            let reason = String(cString: strerror(errno))
            if descriptor >= 0 { close(descriptor) }
            throw HarnessError("UDP listener: \(reason)")
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }
}
