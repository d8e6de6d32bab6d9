import LocTrack
package import LocTrackDistance
package import LocTrackProcess

/// Trips as lines: `loctrack trips`' one per trip in JSON, CSV or text and the totals that
/// end the text; and the live `TRIP` events of `stream --trips` and `monitor run --trips`,
/// a finished trip's members the same with `"state":"end"` (docs/json.md). Values in, text out; a value that is not finite is written as 0
/// (the engines give none, and JSON has no NaN).
package enum TripLines {
    /// Decimals of each kind of value, the same in JSON and CSV.
    static let metreDecimals = 1
    static let secondDecimals = 3
    static let speedDecimals = 3
    static let degreeDecimals = 9

    /// The CSV header, the columns in the order of the JSON members.
    package static let csvHeader =
        "start,end,distance,duration,movingTime,maxSpeed,averageSpeed,startLat,startLon,endLat,endLon,device\r\n"

    /// What comes before the first trip: the CSV header, else nothing.
    package static func begin(_ format: TripsFormat) -> String {
        format == .csv ? csvHeader : ""
    }

    /// The trip's line, with its line end.
    package static func line(_ trip: TripSummary, _ format: TripsFormat) -> String {
        switch format {
        case .json: json(trip)
        case .csv: csv(trip)
        case .text: text(trip)
        }
    }

    /// What comes after the last trip: the totals in text, else nothing.
    package static func end(_ totals: TripTotals, _ format: TripsFormat) -> String {
        format == .text ? text(totals) : ""
    }

    /// `{"class":"TRIP","start":…,"end":…,"distance":…,"duration":…,"movingTime":…,"maxSpeed":…,
    /// "averageSpeed":…,"startLat":…,"startLon":…,"endLat":…,"endLon":…,"device":…}`; no
    /// `device` when the points named none.
    package static func json(_ trip: TripSummary) -> String {
        var line = OutputBytes(reservingCapacity: 320)
        appendJSON(trip, state: nil, to: &line)
        return String(decoding: line.bytes, as: UTF8.self)
    }

    /// A live trip event as a JSON line: `{"class":"TRIP","state":"start","start":…,
    /// "startLat":…,"startLon":…,"odometer":…,"device":…}` when a trip started (its first
    /// moving fix), the finished trip's line with `"state":"end"` and the `odometer` at its
    /// end when it ended.
    package static func appendEventJSON(_ event: TripEvent, to line: inout OutputBytes) {
        switch event {
        case .started(let start, let device):
            line.append("{\"class\":\"TRIP\",\"state\":\"start\",\"start\":\"")
            line.append(start.time)
            line.append(byte: 0x22)
            member("startLat", start.latitude, degreeDecimals, &line)
            member("startLon", start.longitude, degreeDecimals, &line)
            member("odometer", start.odometer, metreDecimals, &line)
            appendDevice(device, to: &line)
            line.append("}\n")
        case .ended(let trip):
            appendJSON(trip, state: "end", to: &line)
        }
    }

    /// A live trip event for a terminal: `… trip started at 52.51629, 13.37765`, or
    /// `… trip ended: ` and the finished trip's text line.
    package static func eventText(_ event: TripEvent) -> String {
        switch event {
        case .started(let start, _):
            wholeSeconds(start.time) + "  trip started at " + position(start) + "\n"
        case .ended(let trip):
            wholeSeconds(trip.end.time) + "  trip ended: " + text(trip)
        }
    }

    private static func appendJSON(_ trip: TripSummary, state: StaticString?, to line: inout OutputBytes) {
        line.append("{\"class\":\"TRIP\",")
        if let state {
            line.append("\"state\":\"")
            line.append(state)
            line.append("\",")
        }
        line.append("\"start\":\"")
        line.append(trip.start.time)
        line.append("\",\"end\":\"")
        line.append(trip.end.time)
        line.append(byte: 0x22)
        member("distance", trip.distance, metreDecimals, &line)
        member("duration", trip.duration, secondDecimals, &line)
        member("movingTime", trip.movingTime, secondDecimals, &line)
        member("maxSpeed", trip.maxSpeed, speedDecimals, &line)
        member("averageSpeed", trip.averageSpeed, speedDecimals, &line)
        member("startLat", trip.start.latitude, degreeDecimals, &line)
        member("startLon", trip.start.longitude, degreeDecimals, &line)
        member("endLat", trip.end.latitude, degreeDecimals, &line)
        member("endLon", trip.end.longitude, degreeDecimals, &line)
        if state != nil { member("odometer", trip.end.odometer, metreDecimals, &line) }
        appendDevice(trip.device, to: &line)
        line.append("}\n")
    }

    private static func appendDevice(_ device: String?, to line: inout OutputBytes) {
        guard let device else { return }
        line.append(",\"device\":\"")
        line.appendJSONEscaped(device)
        line.append(byte: 0x22)
    }

    /// One row under ``csvHeader``, CRLF-ended; an empty last cell when no device is known.
    package static func csv(_ trip: TripSummary) -> String {
        var row = trip.start.time.iso8601 + "," + trip.end.time.iso8601
        for (value, decimals) in [
            (trip.distance, metreDecimals), (trip.duration, secondDecimals), (trip.movingTime, secondDecimals),
            (trip.maxSpeed, speedDecimals),
            (trip.averageSpeed, speedDecimals), (trip.start.latitude, degreeDecimals),
            (trip.start.longitude, degreeDecimals), (trip.end.latitude, degreeDecimals),
            (trip.end.longitude, degreeDecimals),
        ] {
            row += ","
            row.appendFixed(finite(value), decimals: decimals)
        }
        return row + "," + CSVEncoder.quoted(trip.device ?? "") + "\r\n"
    }

    /// `2026-11-23T08:14:03Z → 08:41:10Z  27 min 07 s  12.35 km  avg 27.3 km/h  max 71.3 km/h
    /// 52.51629, 13.37765 → 52.50120, 13.40120  /dev/ttyACM0` (one line): the end's date only
    /// when it is another UTC day than the start's.
    package static func text(_ trip: TripSummary) -> String {
        let start = trip.start.time.utcFields
        let end = trip.end.time.utcFields
        var line = wholeSeconds(trip.start.time) + " → "
        line += (start.year, start.month, start.day) == (end.year, end.month, end.day)
            ? String(wholeSeconds(trip.end.time).dropFirst(11)) : wholeSeconds(trip.end.time)
        line += "  " + duration(trip.duration) + "  " + distance(trip.distance)
        line += "  avg " + kilometresPerHour(trip.averageSpeed) + "  max " + kilometresPerHour(trip.maxSpeed) + "  "
        line += position(trip.start) + " → " + position(trip.end)
        if let device = trip.device { line += "  " + device }
        return line + "\n"
    }

    /// `3 trips  45.67 km  1 h 12 min moving  (52.10 km in all; 86400 points from 2 files)`, or
    /// `no trips  (…)`: the distance in all is the odometer's over the whole track, trips or
    /// not (a walk that never got 200 m from where it stopped is in no trip).
    package static func text(_ totals: TripTotals) -> String {
        var line: String
        switch totals.trips {
        case 0: line = "no trips"
        case 1: line = "1 trip"
        default: line = "\(totals.trips) trips"
        }
        if totals.trips > 0 {
            line += "  " + distance(totals.distance) + "  " + duration(totals.movingSeconds) + " moving"
        }
        let points = totals.points == 1 ? "1 point" : "\(totals.points) points"
        let files = totals.files == 1 ? "1 file" : "\(totals.files) files"
        let inAll = totals.points > 0 ? distance(totals.distanceInAll) + " in all; " : ""
        return line + "  (" + inAll + points + " from " + files + ")\n"
    }

    /// The one line said when the receiver's speeds disagree with its positions
    /// (``Odometer/speedDisagreement``): `ratio` is the speeds' integral over the positions'
    /// displacement where they first did.
    package static func speedDisagreement(_ ratio: Double) -> String {
        var factor = ""
        factor.appendFixed(finite(ratio), decimals: 2)
        return "the speeds disagree with the positions (\(factor) × the distance the positions cover: another unit?); "
            + "distances come from the positions"
    }

    // MARK: Pieces of the text

    /// `2026-11-23T08:14:03Z`: a person's precision, the second (cut, as gpsd cuts to the millisecond).
    static func wholeSeconds(_ time: Timestamp) -> String {
        String(time.iso8601.prefix(19)) + "Z"
    }

    /// `45 s`, `27 min 07 s`, `1 h 02 min`, to the nearest second.
    static func duration(_ seconds: Double) -> String {
        let total = Int(finite(seconds).rounded())
        if total < 60 { return "\(total) s" }
        if total < 3600 { return "\(total / 60) min " + twoDigits(total % 60) + " s" }
        let minutes = (total + 30) / 60
        return "\(minutes / 60) h " + twoDigits(minutes % 60) + " min"
    }

    /// `850 m` below a kilometre, else `12.35 km`.
    static func distance(_ metres: Double) -> String {
        let value = finite(metres)
        var text = ""
        if value.rounded() < 1000 {
            text.appendFixed(value, decimals: 0)
            return text + " m"
        }
        text.appendFixed(value / 1000, decimals: 2)
        return text + " km"
    }

    /// `27.3 km/h` from metres per second.
    static func kilometresPerHour(_ metresPerSecond: Double) -> String {
        var text = ""
        text.appendFixed(finite(metresPerSecond) * 3.6, decimals: 1)
        return text + " km/h"
    }

    /// `52.51629, 13.37765`: five decimals, about a metre.
    static func position(_ endpoint: TripEndpoint) -> String {
        var text = ""
        text.appendFixed(finite(endpoint.latitude), decimals: 5)
        text += ", "
        text.appendFixed(finite(endpoint.longitude), decimals: 5)
        return text
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    private static func member(_ name: StaticString, _ value: Double, _ decimals: Int, _ line: inout OutputBytes) {
        line.append(",\"")
        line.append(name)
        line.append("\":")
        line.appendFixed(finite(value), decimals: decimals)
    }

    private static func finite(_ value: Double) -> Double {
        value.isFinite ? value : 0
    }
}

/// What the trips of a `loctrack trips` run add up to, and what they were found in.
package struct TripTotals: Equatable, Sendable {
    package var trips = 0
    /// Metres, the trips' distances summed.
    package var distance = 0.0
    /// Seconds, the trips' moving times summed (their stops shorter than a trip's end left out).
    package var movingSeconds = 0.0
    /// Metres, the odometer over the whole track: the trips' and what was in none.
    package var distanceInAll = 0.0
    /// The points read (after merging: one per time).
    package var points = 0
    /// The files read, wholly or in part.
    package var files = 0

    package init(points: Int = 0, files: Int = 0) {
        self.points = points
        self.files = files
    }

    package mutating func add(_ trip: TripSummary) {
        trips += 1
        distance += trip.distance
        movingSeconds += trip.movingTime
    }
}
