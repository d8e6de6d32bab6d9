internal import CGPS

/// Parses gpsd report lines with libgps's own JSON parser (`gps_unpack`).
///
/// It needs no connection: `gps_unpack` only fills a `gps_data_t`, which this
/// type owns on the heap (24 KB). Not thread-safe; one per reader thread.
final class ReportDecoder {
    private let data: UnsafeMutablePointer<gps_data_t>

    init() {
        data = .allocate(capacity: 1)
        data.initialize(to: gps_data_t())
    }

    deinit {
        data.deallocate()
    }

    /// Parses one complete TPV line (NUL-terminated, in place).
    ///
    /// `set` is zeroed first: libgps only clears its own PACKET_SET bit, so
    /// bits left by an earlier report would otherwise look like this one's.
    func decodeTPV(line: UnsafeMutablePointer<CChar>) -> TPVReport {
        unpack(line)
        return TPVReport(unpacked: data)
    }

    /// The `release` of gpsd's `VERSION` banner.
    func decodeVersionRelease(line: UnsafeMutablePointer<CChar>) -> String? {
        unpack(line)
        guard (data.pointee.set & UInt64(VERSION_SET)) != 0 else { return nil }
        return withUnsafeBytes(of: data.pointee.version.release) { String(decodingCString: $0) }
    }

    /// The `message` of an `ERROR` report.
    func decodeErrorMessage(line: UnsafeMutablePointer<CChar>) -> String {
        unpack(line)
        return withUnsafeBytes(of: data.pointee.error) { String(decodingCString: $0) }
    }

    private func unpack(_ line: UnsafeMutablePointer<CChar>) {
        data.pointee.set = 0
        _ = gps_unpack(line, data)
    }
}
