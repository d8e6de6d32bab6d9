internal import CGPS

extension SkyView {
    /// Reads the SKY report libgps just unpacked into `pointer`, whose satellite count
    /// and dilutions ``ReportDecoder/decodeSky(line:seen:used:)`` cleared first (libgps
    /// leaves what an earlier report set when this one omits it).
    /// - Parameters:
    ///   - seen, used: gpsd's own `nSat` and `uSat` when the report had them.
    init(unpacked pointer: UnsafePointer<gps_data_t>, seen reportedSeen: Int?, used reportedUsed: Int?) {
        let data = pointer.pointee
        let count = max(0, min(Int(data.satellites_visible), Int(MAXCHANNELS)))
        var satellites: [Satellite] = []
        satellites.reserveCapacity(count)
        withUnsafeBytes(of: pointer.pointee.skyview) { raw in
            let skyview = raw.bindMemory(to: satellite_t.self)
            for index in 0..<count {
                let satellite = skyview[index]
                guard satellite.PRN > 0 || satellite.svid > 0 else { continue }
                // gnssid 0 is GPS, and also what libgps leaves when the report gave none:
                // gpsd says to trust gnssid only with a svid.
                let known = satellite.svid > 0
                satellites.append(Satellite(
                    prn: Int(satellite.PRN),
                    constellation: known ? Constellation(rawValue: Int(satellite.gnssid)) : nil,
                    satelliteID: known ? Int(satellite.svid) : nil,
                    elevation: finite(satellite.elevation), azimuth: finite(satellite.azimuth),
                    signalStrength: finite(satellite.ss).flatMap { $0 >= 0 ? $0 : nil },
                    used: satellite.used,
                    healthy: satellite.health == SAT_HEALTH_OK ? true : satellite.health == SAT_HEALTH_BAD ? false : nil))
            }
        }
        let dop = data.dop
        let device = withUnsafeBytes(of: pointer.pointee.dev.path) { String(decodingCString: $0) }
        let time = data.skyview_time
        self.init(
            device: device.isEmpty ? nil : device,
            time: time.tv_sec > 0 ? Timestamp(seconds: Int64(time.tv_sec), nanoseconds: Int32(time.tv_nsec)) : nil,
            seen: reportedSeen ?? satellites.count,
            used: reportedUsed ?? satellites.filter(\.used).count,
            dilution: DilutionOfPrecision(
                horizontal: positive(dop.hdop), vertical: positive(dop.vdop), position: positive(dop.pdop),
                time: positive(dop.tdop), geometric: positive(dop.gdop), longitude: positive(dop.xdop),
                latitude: positive(dop.ydop)),
            satellites: satellites)
    }
}

/// A dilution of precision is > 0; libgps leaves NaN (or our cleared 0) for one not sent.
private func positive(_ value: Double) -> Double? {
    value.isFinite && value > 0 ? value : nil
}
