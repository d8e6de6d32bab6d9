import Foundation
import Glibc
@testable import LocTrack
@testable import LocTrackMonitor

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

/// A private `XDG_STATE_HOME` for one test: loctrack's monitors live in `<it>/loctrack/`.
final class StateHome: Sendable {
    let path: String

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/loctrack-state.XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw HarnessError("mkdtemp failed: errno \(errno)") }
        path = String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    var environment: [String: String] { ["XDG_STATE_HOME": path] }

    /// The state file of monitor `name`.
    func stateFile(_ name: String = "default") -> String { "\(path)/loctrack/\(name).monitor.json" }

    /// `loctrack ARGUMENTS` with this state home, to the end.
    func loctrack(_ arguments: [String], timeLimit: Duration = .seconds(20)) async throws -> LoctrackResult {
        try await LoctrackProcess.run(arguments, environment: environment, timeLimit: timeLimit)
    }

    func start(_ arguments: [String]) throws -> ChildProcess {
        try LoctrackProcess.start(arguments, environment: environment)
    }

    /// Writes `text` to a file in this folder and returns its path.
    func file(_ name: String, _ text: String) throws -> String {
        let file = "\(path)/\(name)"
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }
}
