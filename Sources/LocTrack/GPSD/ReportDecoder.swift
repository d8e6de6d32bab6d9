internal import CGPS

/// Parses gpsd report lines with libgps's own JSON parser (`gps_unpack`).
///
/// It needs no connection: `gps_unpack` only fills a `gps_data_t`, which this
/// type owns on the heap (24 KB). Not thread-safe; one per reader thread.
final class ReportDecoder {
    private let data: UnsafeMutablePointer<gps_data_t>
    /// The last TPV's device path as libgps wrote it (always NUL-terminated here), and as a String.
    /// gpsd names the same device in report after report: comparing the bytes
    /// runs less code than making a new String from them for every fix.
    private let lastDevicePath: UnsafeMutablePointer<CChar>
    private var lastDevice: String?

    init() {
        data = .allocate(capacity: 1)
        data.initialize(to: gps_data_t())
        lastDevicePath = .allocate(capacity: Self.devicePathCapacity + 1)
        lastDevicePath.initialize(repeating: 0, count: Self.devicePathCapacity + 1)
    }

    deinit {
        data.deallocate()
        lastDevicePath.deallocate()
    }

    private static let devicePathCapacity = MemoryLayout.size(ofValue: gps_data_t().dev.path)

    /// Parses one complete TPV line (NUL-terminated, in place).
    ///
    /// `set` is zeroed first: libgps only clears its own PACKET_SET bit, so
    /// bits left by an earlier report would otherwise look like this one's.
    func decodeTPV(line: UnsafeMutablePointer<CChar>) -> TPVReport {
        unpack(line)
        return TPVReport(unpacked: data, device: device())
    }

    /// The device path of the report just unpacked, nil when empty.
    private func device() -> String? {
        withUnsafeBytes(of: &data.pointee.dev.path) { raw in
            let path = raw.baseAddress!.assumingMemoryBound(to: CChar.self)
            if !isLastDevicePath(path) {
                lastDevicePath.update(from: path, count: Self.devicePathCapacity)  // the copy has one NUL more
                let device = String(decodingCString: UnsafeRawBufferPointer(raw))
                lastDevice = device.isEmpty ? nil : device
            }
            return lastDevice
        }
    }

    /// Whether `path` (NUL-terminated, or as long as the field) is ``lastDevicePath``.
    private func isLastDevicePath(_ path: UnsafePointer<CChar>) -> Bool {
        for index in 0..<Self.devicePathCapacity {
            if path[index] != lastDevicePath[index] { return false }
            if path[index] == 0 { return true }
        }
        return true
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
