import LocTrack

/// gpsd's TPV as one JSON line: gpsd's field names, order, units and decimals
/// (`man gpsd_json`); a value that is unknown is left out, never `null` or `NaN`.
enum JSONLine {
    static func format(_ fix: Fix) -> String {
        var line = "{\"class\":\"TPV\""
        line.reserveCapacity(400)
        if let device = fix.device {
            line += ",\"device\":\""
            appendEscaped(device, to: &line)
            line += "\""
        }
        if fix.status != .gps { line += ",\"status\":\(fix.status.rawValue)" }
        line += ",\"mode\":\(fix.mode.rawValue),\"time\":\"\(fix.time.iso8601)\""
        if let leapSeconds = fix.leapSeconds { line += ",\"leapseconds\":\(leapSeconds)" }
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
        if let velocity = fix.velocityNED {
            append("velN", velocity.north, 3, to: &line)
            append("velE", velocity.east, 3, to: &line)
            append("velD", velocity.down, 3, to: &line)
        }
        append("geoidSep", fix.geoidSeparation, 3, to: &line)
        append("eph", fix.horizontalError, 3, to: &line)
        append("sep", fix.sphericalError, 3, to: &line)
        line += fix.isStationary ? ",\"stationary\":true}\n" : ",\"stationary\":false}\n"
        return line
    }

    private static func append(_ name: String, _ value: Double?, _ decimals: Int, to line: inout String) {
        guard let value, value.isFinite else { return }
        line += ",\""
        line += name
        line += "\":"
        line.appendFixed(value, decimals: decimals)
    }

    static func appendEscaped(_ text: String, to line: inout String) {
        line += GPSDCommand.jsonEscaped(text)
    }
}
