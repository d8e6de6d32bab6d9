import Glibc

/// Checks that gpsd's host answers before libgps connects.
///
/// `gps_open` connects with a blocking `connect()` and no timeout: a host that
/// drops packets (a firewall, a dead route) holds it for the kernel's minutes of
/// SYN retries, during which the reader cannot be stopped. The probe connects
/// without blocking, waits in `poll()` on the socket and the wake-up pipe for at
/// most ``timeoutMilliseconds``, and closes again; then `gps_open` connects to a
/// host known to answer (and reports a refusal in libgps's own words).
enum ConnectProbe {
    static let timeoutMilliseconds: Int32 = 3_000

    enum Outcome: Equatable {
        /// The host answered (accepted or refused): let libgps connect.
        case answered
        /// No answer in time.
        case timedOut
        /// ``ReaderThread/stop(flushing:)`` woke the reader.
        case stopped
    }

    static func probe(_ source: GPSDSource, wakeDescriptor: Int32) -> Outcome {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(source.host, source.port, &hints, &list) == 0, let first = list else {
            return .answered  // libgps resolves again and reports the failure in its words
        }
        defer { freeaddrinfo(list) }
        let descriptor = socket(first.pointee.ai_family, first.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return .answered }
        defer { close(descriptor) }
        if connect(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 || errno != EINPROGRESS {
            return .answered
        }
        var descriptors = [
            pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0),
            pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        let ready = retryingInterrupts { poll(&descriptors, 2, timeoutMilliseconds) }
        if ready > 0 && descriptors[1].revents != 0 { return .stopped }
        return ready > 0 ? .answered : .timedOut
    }
}
