// With ReportDecoder.swift and TPVDecoding.swift beside it, the only place
// that imports libgps. `gps_data_t` (24 KB) lives on the heap here and never
// leaves this folder: callers see sockets, strings and `Fix` values.
internal import CGPS
import Glibc

/// One connection to gpsd through libgps.
///
/// Not thread-safe, like libgps itself: the reader thread creates, uses and
/// closes it, and nothing else touches it.
final class GPSDConnection {
    private let data: UnsafeMutablePointer<gps_data_t>
    /// The connected socket (non-blocking: libgps sets O_NONBLOCK after connecting).
    let socket: Int32
    let source: GPSDSource

    /// Connects to gpsd. Blocks while resolving and connecting, as `gps_open` does,
    /// so call it on the reader thread, never on the cooperative pool.
    ///
    /// The corresponding C function is `gps_open`.
    /// - Throws: `.cannotConnect` with libgps's reason (`gps_errstr`).
    init(connectingTo source: GPSDSource) throws(LocTrackError) {
        let data = UnsafeMutablePointer<gps_data_t>.allocate(capacity: 1)
        data.initialize(to: gps_data_t())
        errno = 0
        if gps_open(source.host, source.port, data) != 0 {
            // libgps reports its own negative codes (NL_NOHOST, NL_NOCONNECT, …) through errno.
            let reason = String(cString: gps_errstr(errno))
            data.deallocate()
            throw LocTrackError(.cannotConnect, source: source, reason: reason)
        }
        self.data = data
        self.socket = loctrack_gps_socket(data)
        self.source = source
    }

    deinit {
        gps_close(data)
        data.deallocate()
    }

    /// Sends a complete gpsd command such as `?WATCH={…};`.
    ///
    /// The corresponding C function is `gps_send` (through the shim: it is variadic).
    /// - Throws: `.connectionLost` when the write fails (SIGPIPE must be ignored).
    func send(_ command: String) throws(LocTrackError) {
        if loctrack_gps_send_command(data, command) != 0 {
            throw LocTrackError(.connectionLost, source: source, reason: "sending \(command.prefix(8))…: \(Errno.current)")
        }
    }
}

/// The current `errno` with its C library text, for messages.
struct Errno: CustomStringConvertible {
    let code: Int32
    static var current: Errno { Errno(code: errno) }
    var description: String { String(cString: strerror(code)) }
}

extension String {
    /// A string from a fixed-size C character array, stopping at the first NUL.
    init(decodingCString bytes: UnsafeRawBufferPointer) {
        let count = bytes.firstIndex(of: 0) ?? bytes.count
        self = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<count]), as: UTF8.self)
    }
}
