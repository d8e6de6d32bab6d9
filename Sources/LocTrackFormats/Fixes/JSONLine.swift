package import LocTrack
package import LocTrackDistance

/// gpsd's TPV as one JSON line: gpsd's field names, order, units and decimals
/// (`man gpsd_json`); a value that is unknown is left out, never `null` or `NaN`.
package enum JSONLine {
    package static func format(_ fix: Fix) -> String {
        var bytes = OutputBytes(reservingCapacity: 400)
        write(fix, into: &bytes)
        return String(decoding: bytes.bytes, as: UTF8.self)
    }

    /// Appends the line, with its newline, to `line`.
    /// - Parameter odometer: when the command measures distance, loctrack's `odometer`
    ///   (metres) and `moving` after the fix, the last two fields.
    package static func write(
        _ fix: Fix, odometer: OdometerReading? = nil, into line: inout OutputBytes, newline: Bool = true
    ) {
        line.append("{\"class\":\"TPV\"")
        if let device = fix.device {
            line.append(",\"device\":\"")
            line.appendJSONEscaped(device)
            line.append(byte: 0x22)
        }
        if fix.status != .gps {
            line.append(",\"status\":")
            line.append(fix.status.rawValue)
        }
        line.append(",\"mode\":")
        line.append(fix.mode.rawValue)
        line.append(",\"time\":\"")
        line.append(fix.time)
        line.append(byte: 0x22)
        if let leapSeconds = fix.leapSeconds {
            line.append(",\"leapseconds\":")
            line.append(leapSeconds)
        }
        append("ept", fix.timeError, 3, to: &line)
        append("lat", fix.latitude, 9, to: &line)
        append("lon", fix.longitude, 9, to: &line)
        append("altHAE", fix.altitudeHAE, 4, to: &line)
        append("altMSL", fix.altitudeMSL, 4, to: &line)
        append("epx", fix.longitudeError, 3, to: &line)
        append("epy", fix.latitudeError, 3, to: &line)
        append("epv", fix.verticalError, 3, to: &line)
        append("track", fix.track, 4, to: &line)
        append("magtrack", fix.magneticTrack, 4, to: &line)
        append("magvar", fix.magneticVariation, 1, to: &line)
        append("speed", fix.speed, 3, to: &line)
        append("climb", fix.climb, 3, to: &line)
        append("epd", fix.trackError, 4, to: &line)
        append("eps", fix.speedError, 2, to: &line)
        append("epc", fix.climbError, 2, to: &line)
        if let ecef = fix.ecef {
            append("ecefx", ecef.x, 2, to: &line)
            append("ecefy", ecef.y, 2, to: &line)
            append("ecefz", ecef.z, 2, to: &line)
            append("ecefvx", ecef.vx, 2, to: &line)
            append("ecefvy", ecef.vy, 2, to: &line)
            append("ecefvz", ecef.vz, 2, to: &line)
            append("ecefpAcc", ecef.positionAccuracy, 2, to: &line)
            append("ecefvAcc", ecef.velocityAccuracy, 2, to: &line)
        }
        if let relative = fix.relativePosition {
            append("relN", relative.north, 3, to: &line)
            append("relE", relative.east, 3, to: &line)
            append("relD", relative.down, 3, to: &line)
            if relative.heading != nil && relative.length != nil {
                append("relH", relative.heading, 3, to: &line)
                append("relL", relative.length, 3, to: &line)
            }
        }
        if let velocity = fix.velocityNED {
            append("velN", velocity.north, 3, to: &line)
            append("velE", velocity.east, 3, to: &line)
            append("velD", velocity.down, 3, to: &line)
        }
        append("geoidSep", fix.geoidSeparation, 3, to: &line)
        append("eph", fix.horizontalError, 3, to: &line)
        append("sep", fix.sphericalError, 3, to: &line)
        if let station = fix.dgpsStation {
            append("dgpsAge", fix.dgpsAge, 1, to: &line)
            line.append(",\"dgpsSta\":")
            line.append(station)
        }
        line.append(fix.isStationary ? ",\"stationary\":true" : ",\"stationary\":false")
        if let odometer {
            append("odometer", odometer.metres, 3, to: &line)
            line.append(odometer.moving ? ",\"moving\":true" : ",\"moving\":false")
        }
        line.append(byte: 0x7D)
        if newline { line.append(byte: 0x0A) }
    }

    /// Not inlined: inlined in each of its 26 calls it would make `write` many times larger,
    /// and at 1 Hz the code a fix touches costs more than the calls (docs/performance.md).
    @inline(never)
    private static func append(_ name: StaticString, _ value: Double?, _ decimals: Int, to line: inout OutputBytes) {
        guard let value, value.isFinite else { return }
        line.append(",\"")
        line.append(name)
        line.append("\":")
        line.appendFixed(value, decimals: decimals)
    }
}
