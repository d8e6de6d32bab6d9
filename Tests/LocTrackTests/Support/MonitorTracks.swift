import Foundation
import Glibc
@testable import LocTrack
@testable import LocTrackMonitor
import LocTrackTestSupport
@testable import LocTrackFormats
@testable import LocTrackSinks

/// Tracks for the monitor's end-to-end tests: positions given in metres north and east of
/// ``origin``, written as NMEA for gpsfake, and the fixes gpsd will make of them.
enum MonitorTracks {
    static let origin = GeoPoint(unchecked: 47.376887, 8.541694)

    /// The point `north` and `east` metres from ``origin`` (a local plane: exact to centimetres over a km).
    static func point(north: Double, east: Double) -> GeoPoint {
        let longitudeScale = Earth.metresPerDegree * cos(origin.latitude * Double.pi / 180)
        return GeoPoint(unchecked: origin.latitude + north / Earth.metresPerDegree, origin.longitude + east / longitudeScale)
    }

    /// One 3D epoch per position, GSA + RMC + GGA (no GST), so gpsd's eph is HDOP × 19 m.
    static func log(_ positions: [(north: Double, east: Double)], hdop: Double, start: Timestamp = NMEALog.defaultStart) -> NMEALog {
        NMEALog(epochs: positions.map { position in
            let point = point(north: position.north, east: position.east)
            return NMEALog.Epoch(latitude: point.latitude, longitude: point.longitude, hdop: hdop)
        }, start: start, sentences: [.gsa, .rmc, .gga])
    }

    /// The fixes gpsd makes of `log`: positions as NMEA carries them (micro-degrees), eph, time.
    static func expectedFixes(_ log: NMEALog) -> [Fix] {
        log.epochs.indices.map { index in
            Fix(time: log.time(ofEpoch: index), mode: .threeD,
                latitude: Double(log.epochs[index].latitudeMicrodegrees) / 1e6,
                longitude: Double(log.epochs[index].longitudeMicrodegrees) / 1e6,
                horizontalError: log.expectedHorizontalError(ofEpoch: index))
        }
    }

    /// `LAT,LON,RADIUS` for `--circle`, centred `north`/`east` metres from the origin.
    static func circleArgument(radius: Double, north: Double = 0, east: Double = 0) -> String {
        let centre = point(north: north, east: east)
        return "\(centre.latitude),\(centre.longitude),\(radius)"
    }

    /// A GeoJSON Feature with a Polygon through the (north, east) corners.
    static func polygonFeature(id: String, corners: [(Double, Double)]) -> String {
        let ring = (corners + [corners[0]]).map { corner in
            let point = point(north: corner.0, east: corner.1)
            return "[\(point.longitude),\(point.latitude)]"
        }
        return #"{"type":"Feature","properties":{"id":"\#(id)"},"geometry":{"type":"Polygon","coordinates":[[\#(ring.joined(separator: ","))]]}}"#
    }
}
