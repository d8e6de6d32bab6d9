public import LocTrack
public import LocTrackDistance
import LocTrackFormats

/// A fix as a Traccar position: the query of the OsmAnd protocol's GET, which every
/// Traccar version decodes (its `OsmAndProtocolDecoder`). What the spool
/// keeps for the uplink, one query per position.
///
/// `id=DEVICE&timestamp=MS&lat=…&lon=…[&speed=KNOTS][&bearing=…][&altitude=…][&accuracy=…]
/// [&hdop=…][&sat=N&satVisible=N]&odometer=M&motion=true|false&status=NAME[&device=PATH]`
///
/// - `timestamp`: the fix's time (the receiver's, never the wall clock's) in whole
///   milliseconds since 1970. Traccar reads a number from 2^31 up as milliseconds, and
///   every time after 1970-01-25 is that many.
/// - `lat`, `lon`, `bearing` (gpsd's `track`), `altitude` (`altMSL`, else `altHAE`) and
///   `accuracy` (gpsd's `eph`) with gpsd's own decimals, digit for digit as loctrack's
///   JSON lines write them (LocTrackFormats' `appendFixed`: 9, 9, 4, 4, 3).
/// - `speed` in knots, Traccar's unit: gpsd's m/s × 1.943844 (3 decimals), left out
///   when the receiver reported none.
/// - `hdop`, `sat` (satellites used) and `satVisible` (seen), Traccar's names, from the
///   last SKY report when there is one.
/// - Attributes (Traccar keeps any other parameter): `odometer` in metres to the
///   millimetre, `motion` (the odometer's confirmed moving state), `status` (gpsd's fix
///   status, `GPS`, `DGPS`, `RTK fixed`, …) and `device` (gpsd's device path).
///
/// Values are percent-encoded (RFC 3986 unreserved characters kept); numbers need none.
public enum OsmAndQuery {
    /// Knots per metre per second: 3600 / 1852.
    public static let knotsPerMetrePerSecond = 1.943844

    /// The query for `fix` (without a leading `?`), as UTF-8 bytes.
    /// - Parameters:
    ///   - deviceID: the device's identifier in Traccar (the URL's `id`).
    ///   - odometer: the odometer's reading after this fix.
    ///   - sky: the latest SKY report, when the session reports satellites.
    public static func encode(_ fix: Fix, deviceID: String, odometer: OdometerReading, sky: SkyView? = nil) -> [UInt8] {
        var query = OutputBytes(reservingCapacity: 256)
        query.append("id=")
        query.append(percentEncoded(deviceID))
        query.append("&timestamp=")
        query.append(milliseconds(fix.time))
        append("lat", fix.latitude, 9, to: &query)
        append("lon", fix.longitude, 9, to: &query)
        append("speed", fix.speed.map { $0 * knotsPerMetrePerSecond }, 3, to: &query)
        append("bearing", fix.track, 4, to: &query)
        append("altitude", fix.altitudeMSL ?? fix.altitudeHAE, 4, to: &query)
        append("accuracy", fix.horizontalError, 3, to: &query)
        if let sky {
            append("hdop", sky.dilution.horizontal, 2, to: &query)
            query.append("&sat=")
            query.append(sky.used)
            query.append("&satVisible=")
            query.append(sky.seen)
        }
        append("odometer", odometer.metres, 3, to: &query)
        query.append(odometer.moving ? "&motion=true" : "&motion=false")
        query.append("&status=")
        query.append(percentEncoded(fix.status.description))
        if let device = fix.device {
            query.append("&device=")
            query.append(percentEncoded(device))
        }
        return query.bytes
    }

    /// Whole milliseconds since 1970 (rounded down, also before 1970).
    static func milliseconds(_ time: Timestamp) -> Int {
        Int(time.seconds) * 1000 + Int(time.nanoseconds / 1_000_000)
    }

    static func percentEncoded(_ text: String) -> String {
        PercentEncoding.string(text, keeping: PercentEncoding.unreserved)
    }

    /// `&name=value` with `decimals` digits, or nothing for a value that is unknown or not
    /// finite (Traccar's range check lets `NaN` through).
    private static func append(_ name: StaticString, _ value: Double?, _ decimals: Int, to query: inout OutputBytes) {
        guard let value, value.isFinite else { return }
        query.append(byte: UInt8(ascii: "&"))
        query.append(name)
        query.append(byte: UInt8(ascii: "="))
        query.appendFixed(value, decimals: decimals)
    }
}
