import Foundation
import LocTrack
import LocTrackDistance
import Testing

/// The odometer over real receivers on a desk: the GPSD project's regression recordings,
/// as gpsd 3.22 reported them (Fixtures/gpsd-logs/README.md).
@Suite("Odometer: the gpsd recordings")
struct OdometerRecordingTests {
    struct Recording: CustomTestStringConvertible, Sendable {
        let name: String
        /// Whether the receiver stood still for the whole recording (its log's header says so,
        /// or it is a timing receiver or a module on a desk).
        let stationary: Bool
        var testDescription: String { name }
        var path: String { "\(Self.fixtures)/\(name).log.tpv.jsonl" }

        static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/gpsd-logs").path
    }

    static let recordings: [Recording] = [
        Recording(name: "bu353s4", stationary: true),
        Recording(name: "garmin18x-bin", stationary: true),
        Recording(name: "meinberg-gps164", stationary: true),
        Recording(name: "navisys-gr701w", stationary: true),
        Recording(name: "oncore-binary", stationary: true),
        Recording(name: "quectel-l76k-nmea", stationary: true),
        Recording(name: "sirf2", stationary: true),
        Recording(name: "skytraq-dgps", stationary: true),
        Recording(name: "st-teseo-liv3f", stationary: true),
        Recording(name: "trimble-smt-360", stationary: true),
        Recording(name: "ublox-neo-m8n", stationary: true),
        Recording(name: "ublox-neo-m9n-nmea", stationary: true),
        Recording(name: "ublox-zed-f9p_hpg1.11", stationary: true),
        // Carried 5 m west, 10 m south and back: less than its 21 m error circle.
        Recording(name: "haicom-305N", stationary: false),
        // Moved from a desk to a place with no sky.
        Recording(name: "garmin-10x", stationary: false),
        // A phone: a cold start whose fixes jump up to 200 m at reported speeds up to 93 m/s.
        Recording(name: "quectel-eg25-g", stationary: false),
    ]

    @Test("Given a gpsd recording, when its fixes go through the odometer, then a stationary receiver gains at most 1 m",
          arguments: recordings)
    func stationaryRecordingGainsAtMostOneMetre(_ recording: Recording) throws {
        let fixes = try TPVReader.fixes(at: recording.path)
        let measured = Measured(fixes, truth: recording.stationary ? 0 : .nan)
        print("distance-figure: recording \(recording.name) (\(recording.stationary ? "stationary" : "moved")): fixes \(measured.fixes), naive \(Figure.metres(measured.naive)) m, odometer \(Figure.metres(measured.odometer)) m")
        #expect(!fixes.isEmpty)
        if recording.stationary {
            #expect(measured.odometer <= 1)
        }
        // Trips need 200 m: none of these receivers went that far.
        #expect(TripRun(fixes).trips.isEmpty)
    }
}

/// Reads gpsd's TPV lines (with loctrack's own JSON parser): the fixes (mode 2 or 3)
/// with a time and finite coordinates, as loctrack would take them.
enum TPVReader {
    static func fixes(at path: String) throws -> [TrackPoint] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        // gpsd ends its JSON lines with CR LF; the parser takes the CR as white space.
        return try Array(text.utf8).split(separator: UInt8(ascii: "\n")).compactMap { line in
            let tpv = try JSONValue(parsing: line)
            guard (tpv["mode"]?.integerValue ?? 0) >= 2, let lat = tpv["lat"]?.doubleValue, let lon = tpv["lon"]?.doubleValue,
                  let text = tpv["time"]?.stringValue, let time = Timestamp(iso8601: text)
            else { return nil }
            return TrackPoint(time: time, latitude: lat, longitude: lon, speed: tpv["speed"]?.doubleValue,
                              horizontalError: tpv["eph"]?.doubleValue, device: tpv["device"]?.stringValue)
        }
    }
}
