package import LocTrack
package import LocTrackDistance
import LocTrackFormats

/// The values of the device's sensors: one JSON document on `BASE/state`, which each
/// sensor reads its value from (`{{ value_json.KEY }}`). Every key is always there: an
/// unknown value is `null`, which Home Assistant shows as "unknown". The odometer's two
/// keys are the exception: only when the command measures distance, which is when their
/// entities exist.
package struct HomeAssistantState: Equatable {
    package var mode: String?
    package var status: String?
    package var satellitesUsed: Int?
    package var satellitesSeen: Int?
    package var hdop: Double?
    package var pdop: Double?
    package var speed: Double?
    package var altitude: Double?
    package var horizontalError: Double?
    /// The odometer after the latest event, when the command measures distance.
    package var odometer: OdometerReading?

    /// The values that, when they change, go out at once rather than with the interval:
    /// the fix mode and status, and whether the odometer says the receiver moves.
    package var category: [String?] { [mode, status, odometer.map { $0.moving ? "moving" : "still" }] }

    package mutating func take(_ fix: Fix) {
        mode = fix.mode.description
        status = Self.statusName(fix.status)
        speed = fix.speed
        altitude = fix.altitudeMSL ?? fix.altitudeHAE
        horizontalError = fix.horizontalError
    }

    package mutating func take(_ sky: SkyView) {
        satellitesUsed = sky.used
        satellitesSeen = sky.seen
        hdop = sky.dilution.horizontal
        pdop = sky.dilution.position
    }

    /// The receiver lost its fix: the fix's values no longer hold.
    package mutating func fixLost() {
        mode = "no fix"
        status = nil
        speed = nil
        horizontalError = nil
    }

    /// The document, with the number of messages waiting in the spool.
    package func json(spooled: Int) -> JSONValue {
        .object([
            // Text sensors show a null as the text "None": before a fix, say so.
            JSONMember("mode", .string(mode ?? "no fix")),
            JSONMember("status", .string(status ?? "no fix")),
            JSONMember("satellites_used", satellitesUsed.map { .number(Double($0)) } ?? .null),
            JSONMember("satellites_seen", satellitesSeen.map { .number(Double($0)) } ?? .null),
            JSONMember("hdop", Self.number(hdop)),
            JSONMember("pdop", Self.number(pdop)),
            JSONMember("speed", Self.number(speed)),
            JSONMember("altitude", Self.number(altitude)),
            JSONMember("horizontal_error", Self.number(horizontalError)),
            JSONMember("spool", .number(Double(spooled))),
        ] + distanceMembers)
    }

    /// `odometer` in km to the metre (the sensor's unit; rounding keeps it monotonic, as
    /// `total_increasing` needs) and `moving`, when the command measures distance.
    private var distanceMembers: [JSONMember] {
        guard let odometer, odometer.metres.isFinite else { return [] }
        return [
            JSONMember("odometer", .number(odometer.metres.rounded() / 1000)),
            JSONMember("moving", .bool(odometer.moving)),
        ]
    }

    /// gpsd's fix status in words, as Home Assistant shows it.
    package static func statusName(_ status: Fix.Status) -> String {
        switch status.rawValue {
        case 2: "DGPS"
        case 3: "RTK fixed"
        case 4: "RTK float"
        case 5: "dead reckoning"
        case 6: "GNSS + dead reckoning"
        case 7: "time only"
        case 8: "simulated"
        case 9: "P(Y)"
        default: "GPS"
        }
    }

    /// gpsd's value as it is (gpsd rounds what it sends already), or null.
    package static func number(_ value: Double?) -> JSONValue {
        guard let value, value.isFinite else { return .null }
        return .number(value)
    }
}
