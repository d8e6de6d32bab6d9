internal import CGPS

/// What one TPV report said, decoded from libgps's `gps_data_t`.
struct TPVReport: Sendable, Equatable {
    /// The device path gpsd tagged the report with, or `nil`.
    let device: String?
    /// gpsd's mode: 0 not seen, 1 no fix, 2 = 2D, 3 = 3D.
    let mode: Int
    /// The fix, when the report has mode ≥ 2, a finite in-range position and a time.
    let fix: Fix?
}

extension TPVReport {
    /// 1981-01-01T00:00:00Z. GPS time began on 1980-01-06; a receiver that says 1980 (or
    /// libgps's negative times for unreadable text) has no real time, so it is not a fix.
    static let earliestTime: Int64 = 347_155_200

    /// Whether this libgps reads gpsd's `relN`… into their own fields (API 12, gpsd 3.23, on).
    static let readsRelativePositions = loctrack_gps_api_major() > 11

    /// Reads the report libgps just unpacked. Takes a pointer: `gps_data_t` is
    /// 24 KB, too large to copy once per report (docs/performance.md, "What the design
    /// does for speed").
    /// - Parameter device: the report's device path (`dev.path`), nil when empty.
    init(unpacked pointer: UnsafePointer<gps_data_t>, device: String?) {
        let set = pointer.pointee.set
        let raw = pointer.pointee.fix
        let leapSeconds = pointer.pointee.leap_seconds
        self.device = device
        self.mode = (set & UInt64(MODE_SET)) != 0 ? Int(raw.mode) : 0

        guard let fixMode = Fix.Mode(rawValue: mode),  // 2 or 3; gpsd has no other fix modes
              (set & UInt64(LATLON_SET)) != 0, (set & UInt64(TIME_SET)) != 0,
              Int64(raw.time.tv_sec) >= Self.earliestTime,
              raw.latitude.isFinite, raw.longitude.isFinite,
              (-90.0...90.0).contains(raw.latitude), (-180.0...180.0).contains(raw.longitude)
        else {
            self.fix = nil
            return
        }
        // libgps API 11 (gpsd 3.22) stores ecefpAcc and ecefvAcc in each other's field,
        // and velN/velE/velD in relPosN/relPosE/relPosD (velN… stay 0).
        let isAPI11 = loctrack_gps_api_major() == 11
        let swappedAccuracies = isAPI11
        let velocity = isAPI11
            ? (raw.NED.relPosN, raw.NED.relPosE, raw.NED.relPosD)
            : (raw.NED.velN, raw.NED.velE, raw.NED.velD)
        let velocityNED = finite(velocity.0).flatMap { north in
            finite(velocity.1).flatMap { east in
                finite(velocity.2).map { down in Fix.VelocityNED(north: north, east: east, down: down) }
            }
        }
        let ecef: Fix.ECEF? = finite(raw.ecef.x).flatMap { x in
            finite(raw.ecef.y).flatMap { y in
                finite(raw.ecef.z).map { z in
                    Fix.ECEF(
                        x: x, y: y, z: z,
                        vx: finite(raw.ecef.vx), vy: finite(raw.ecef.vy), vz: finite(raw.ecef.vz),
                        positionAccuracy: finite(swappedAccuracies ? raw.ecef.vAcc : raw.ecef.pAcc),
                        velocityAccuracy: finite(swappedAccuracies ? raw.ecef.pAcc : raw.ecef.vAcc))
                }
            }
        }
        // gpsd writes relN and relE together, relD in 3D, relH with relL.
        let relativePosition: Fix.RelativePosition? = !Self.readsRelativePositions ? nil : finite(raw.NED.relPosN).flatMap { north in
            finite(raw.NED.relPosE).map { east in
                Fix.RelativePosition(
                    north: north, east: east, down: finite(raw.NED.relPosD), heading: finite(raw.NED.relPosH),
                    length: finite(raw.NED.relPosL))
            }
        }
        // gpsd writes both or neither.
        let dgpsAge = finite(raw.dgps_age)
        let hasDGPS = dgpsAge != nil && raw.dgps_station >= 0
        self.fix = Fix(
            time: Timestamp(seconds: Int64(raw.time.tv_sec), nanoseconds: Int32(raw.time.tv_nsec)),
            mode: fixMode,
            status: raw.status >= 2 ? Fix.Status(rawValue: Int(raw.status)) : .gps,
            device: self.device,
            latitude: raw.latitude,
            longitude: raw.longitude,
            altitudeHAE: finite(raw.altHAE),
            altitudeMSL: finite(raw.altMSL),
            horizontalError: finite(raw.eph),
            longitudeError: finite(raw.epx),
            latitudeError: finite(raw.epy),
            verticalError: finite(raw.epv),
            timeError: finite(raw.ept),
            sphericalError: finite(raw.sep),
            speed: finite(raw.speed),
            track: finite(raw.track),
            magneticTrack: finite(raw.magnetic_track),
            magneticVariation: finite(raw.magnetic_var),
            climb: finite(raw.climb),
            speedError: finite(raw.eps),
            trackError: finite(raw.epd),
            climbError: finite(raw.epc),
            geoidSeparation: finite(raw.geoid_sep),
            leapSeconds: leapSeconds != 0 ? Int(leapSeconds) : nil,
            ecef: ecef,
            velocityNED: velocityNED,
            relativePosition: relativePosition,
            dgpsAge: hasDGPS ? dgpsAge : nil,
            dgpsStation: hasDGPS ? Int(raw.dgps_station) : nil)
    }
}

/// libgps marks unknown values as NaN; loctrack says `nil`.
private func finite(_ value: Double) -> Double? {
    value.isFinite ? value : nil
}
