// With ReportDecoder.swift and TPVDecoding.swift beside it, the only place
// that imports libgps. `gps_data_t` (24 KB) lives on the heap here and never
// leaves this folder: callers see sockets, strings and `Fix` values.
internal import CGPS
import LocTrackSystem

/// Connects through libgps's `gps_open`: the transport of every real session.
struct LibgpsConnector: GPSDConnector {
    func connect(to source: GPSDSource) throws(LocTrackError) -> any GPSDTransport {
        try GPSDConnection(connectingTo: source)
    }
}

/// One connection to gpsd through libgps.
///
/// Not thread-safe, like libgps itself: the connector thread creates it and hands
/// it to the reader thread, which alone uses and closes it.
final class GPSDConnection: GPSDTransport {
    private let data: UnsafeMutablePointer<gps_data_t>
    /// The connected socket (non-blocking: libgps sets O_NONBLOCK after connecting).
    let descriptor: Int32
    let source: GPSDSource

    /// Connects to gpsd. Blocks while resolving and connecting, as `gps_open` does
    /// (with no timeout of its own), so it runs on a connector thread of its own.
    ///
    /// The corresponding C function is `gps_open`.
    /// - Throws: `.cannotConnect` with libgps's reason (`gps_errstr`).
    init(connectingTo source: GPSDSource) throws(LocTrackError) {
        let data = UnsafeMutablePointer<gps_data_t>.allocate(capacity: 1)
        data.initialize(to: gps_data_t())
        Errno.current = Errno(code: 0)
        if gps_open(source.host, source.port, data) != 0 {
            // libgps reports its own negative codes (NL_NOHOST, NL_NOCONNECT, …) through errno.
            let code = Errno.current.code
            data.deallocate()
            throw LocTrackError(.cannotConnect, source: source, reason: String(cString: gps_errstr(code)),
                                errorNumber: code > 0 ? code : nil)
        }
        self.data = data
        self.descriptor = loctrack_gps_socket(data)
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
            throw LocTrackError(.connectionLost, source: source, failedCall: "sending \(command.prefix(8))…", .current)
        }
    }
}

extension String {
    /// A string from a fixed-size C character array, stopping at the first NUL.
    init(decodingCString bytes: UnsafeRawBufferPointer) {
        let count = bytes.firstIndex(of: 0) ?? bytes.count
        self = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<count]), as: UTF8.self)
    }
}
