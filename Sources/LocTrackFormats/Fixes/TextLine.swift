package import LocTrack
package import LocTrackDistance

/// One fix as a line a person reads at a terminal, e.g.
/// `2026-03-01T10:00:01.000Z  3D DGPS  47.3766210, 8.5417330  ±4.2 m  alt 512.3 m  3.4 m/s 87°  /dev/ttyACM0`.
/// Unknown values are left out.
package enum TextLine {
    /// - Parameter odometer: with `--odometer`, `odo 12.345 km` and `moving` at the end.
    package static func format(_ fix: Fix, odometer: OdometerReading? = nil) -> String {
        var line = fix.time.iso8601
        line += "  \(fix.mode)"
        if fix.status != .gps { line += " \(fix.status)" }
        line += "  "
        line.appendFixed(fix.latitude, decimals: 7)
        line += ", "
        line.appendFixed(fix.longitude, decimals: 7)
        if let error = fix.horizontalError {
            line += "  ±"
            line.appendFixed(error, decimals: 1)
            line += " m"
        }
        if let altitude = fix.altitudeMSL ?? fix.altitudeHAE {
            line += "  alt "
            line.appendFixed(altitude, decimals: 1)
            line += " m"
        }
        if let speed = fix.speed {
            line += "  "
            line.appendFixed(speed, decimals: 1)
            line += " m/s"
            if let track = fix.track {
                line += " "
                line.appendFixed(track, decimals: 0)
                line += "°"
            }
        }
        if let device = fix.device { line += "  \(device)" }
        if let odometer {
            line += "  odo "
            line.appendFixed(odometer.metres / 1000, decimals: 3)
            line += odometer.moving ? " km moving" : " km"
        }
        line += "\n"
        return line
    }
}
