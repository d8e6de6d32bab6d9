import Glibc

/// Plain TCP sockets on 127.0.0.1: free ports, probes, and the sockets of ``TCPRelay`` and its tests.
package enum Loopback {
    /// A non-blocking socket listening on 127.0.0.1 on a port of its own (bound to port 0:
    /// no other test can take it between choosing and binding).
    package static func listen() throws -> (descriptor: Int32, port: Int) {
        try bound(flags: Int32(SOCK_NONBLOCK.rawValue), listening: true)
    }

    /// A close-on-exec TCP socket bound to 127.0.0.1 on a port of its own, listening or not.
    private static func bound(flags: Int32 = 0, listening: Bool) throws -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | flags, 0)
        var address = address(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = descriptor >= 0 && withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && (!listening || Glibc.listen(descriptor, 16) == 0)
                    && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard ready else {
            let reason = String(cString: strerror(errno))
            if descriptor >= 0 { close(descriptor) }
            throw HarnessError("loopback \(listening ? "listener" : "port"): \(reason)")
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A blocking connect to 127.0.0.1:`port` (it succeeds or is refused at once); nil when refused.
    package static func connect(port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = address(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        if !connected { close(fd) }
        return connected ? fd : nil
    }

    /// Whether something accepts connections on 127.0.0.1:`port` now.
    package static func canConnect(port: Int) -> Bool {
        guard let fd = connect(port: port) else { return false }
        close(fd)
        return true
    }

    /// `accept4(listener, nil, nil, SOCK_CLOEXEC)`: the connection is close-on-exec from the start,
    /// so a child another test starts meanwhile cannot hold it (and keep its peer from seeing the
    /// end when the test closes it). glibc's accept4 needs _GNU_SOURCE, which Swift's Glibc
    /// module is built without, so it is looked up by name.
    package static func acceptCloseOnExec(_ listener: Int32) -> Int32 {
        accept4(listener, nil, nil, Int32(SOCK_CLOEXEC.rawValue))
    }

    private typealias Accept4 = @convention(c) (Int32, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int32) -> Int32
    // A C function pointer from dlsym, immutable once read: safe to share across threads.
    nonisolated(unsafe) private static let accept4: Accept4 = unsafeBitCast(dlsym(nil, "accept4")!, to: Accept4.self)

    /// A TCP port that refuses connections for as long as the value lives: a socket bound to it
    /// and never listening holds it, so no other test's server can take it meanwhile (a port
    /// from ``freePort()`` can be handed to the next `bind` to port 0 at once).
    package final class RefusingPort: Sendable {
        package let port: Int
        private let descriptor: Int32

        package init() throws {
            (descriptor, port) = try Loopback.bound(listening: false)
        }

        deinit { close(descriptor) }
    }

    /// A TCP port nothing listens on right now (bound to port 0, read back, closed).
    package static func freePort() throws -> Int {
        let (fd, port) = try listen()
        close(fd)
        return port
    }

    /// Closes `fd` with an RST instead of a FIN (SO_LINGER on, timeout 0): unsent and unread bytes are discarded.
    package static func reset(_ fd: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        close(fd)
    }

    private static func address(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
