package import LocTrack
package import LocTrackDistance
import LocTrackFormats

/// `serve`'s distance: an ``Odometer`` and a ``TripDetector`` of its own over the fixes it
/// shows (those `--track` recorded since local midnight first, then the live ones), today's
/// distance (from local midnight) and the trip under way: `/api/distance` and the
/// `distance` event (docs/http.md).
///
/// It starts from 0 at each start of `serve`, and never reads or writes the odometer file
/// of `stream --odometer`: `serve` only shows.
package struct LiveDistance: Sendable {
    private var odometer = Odometer()
    private var trips = TripDetector()
    /// The local day of the latest position: today's distance is counted over it.
    package private(set) var day: LocalDay?
    /// The odometer before the day's first position.
    private var metresAtDayStart = 0.0
    package private(set) var reading = OdometerReading(metres: 0, moving: false)
    /// The trip under way: its first moving position (earlier than when the rules confirmed it).
    package private(set) var trip: TripEndpoint?
    /// The latest position's time.
    package private(set) var latest: Timestamp?
    /// The newest recorded position: a live fix at or before it was recorded already.
    private var recordedUntil: Timestamp?
    /// What the clients were last told (before any fix: `/api/distance`'s 0, still, no
    /// trip), to tell them only of a change.
    private var told = Shown(metres: 0, moving: false, tripStart: nil)

    /// What a change of is worth an event: today's distance to the metre, motion, and which
    /// trip is under way (neither its duration alone nor the date: a new day without a
    /// metre driven shows the same 0).
    private struct Shown: Equatable {
        var metres: Double
        var moving: Bool
        var tripStart: Timestamp?
    }

    package init() {}

    /// Metres travelled since the start of ``day``.
    package var today: Double { max(0, reading.metres - metresAtDayStart) }

    /// A position `--track` recorded (in time order, before any live one).
    /// - Parameter utcOffset: the local zone's offset at a moment (``LiveClock/utcOffsetSeconds``).
    package mutating func takeRecorded(_ point: TrackPoint, utcOffset: (Int64) -> Int64) {
        add(point, utcOffset: utcOffset)
        recordedUntil = max(recordedUntil ?? point.time, point.time)
    }

    /// A live fix's position. Returns whether what `/api/distance` shows changed enough to
    /// send a `distance` event: today's distance to the metre, motion, the trip under way.
    package mutating func takeLive(_ point: TrackPoint, utcOffset: (Int64) -> Int64) -> Bool {
        if let recordedUntil, point.time <= recordedUntil { return false }
        add(point, utcOffset: utcOffset)
        let shown = Shown(metres: today.rounded(), moving: reading.moving, tripStart: trip?.time)
        guard shown != told else { return false }
        told = shown
        return true
    }

    private mutating func add(_ point: TrackPoint, utcOffset: (Int64) -> Int64) {
        // Today is the local day of the latest position: a new one starts at 0.
        if day.map({ !$0.contains(point.time.seconds) }) ?? true {
            day = LocalDay(containing: point.time.seconds, utcOffset: utcOffset)
            metresAtDayStart = reading.metres
        }
        reading = odometer.add(point)
        for event in trips.add(point, reading: reading) {
            switch event {
            case .started(let start, _): trip = start
            case .ended: trip = nil
            }
        }
        latest = point.time
    }

    /// `{"day":"2026-11-24","today":2212.4,"moving":true,"time":"…","trip":{"start":"…","startLat":…,"startLon":…,"distance":2204.1,"duration":290.000}}`:
    /// `day` and `time` absent before the first fix, `trip` null when none is under way.
    package func json() -> String {
        var bytes = OutputBytes(reservingCapacity: 256)
        bytes.append(byte: 0x7B)
        if let day {
            bytes.append("\"day\":\"")
            bytes.append(day.date)
            bytes.append("\",")
        }
        bytes.append("\"today\":")
        bytes.appendFixed(today, decimals: 1)
        bytes.append(reading.moving ? ",\"moving\":true" : ",\"moving\":false")
        if let latest {
            bytes.append(",\"time\":\"")
            bytes.append(latest)
            bytes.append(byte: 0x22)
        }
        bytes.append(",\"trip\":")
        if let trip {
            bytes.append("{\"start\":\"")
            bytes.append(trip.time)
            bytes.append("\",\"startLat\":")
            bytes.appendFixed(trip.latitude, decimals: 9)
            bytes.append(",\"startLon\":")
            bytes.appendFixed(trip.longitude, decimals: 9)
            bytes.append(",\"distance\":")
            bytes.appendFixed(max(0, reading.metres - trip.odometer), decimals: 1)
            bytes.append(",\"duration\":")
            bytes.appendFixed(max(0, latest.map { $0.seconds(since: trip.time) } ?? 0), decimals: 3)
            bytes.append(byte: 0x7D)
        } else {
            bytes.append("null")
        }
        bytes.append(byte: 0x7D)
        return String(decoding: bytes.bytes, as: UTF8.self)
    }
}
