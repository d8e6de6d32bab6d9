import LocTrack

/// One JSON line of a track file, as the position it holds.
///
/// - A TPV object, as `stream --format json` writes it (and gpsd itself: a `gpspipe -w` log
///   reads too): `time`, `lat`, `lon`, `speed`, `eph`, `device`. Other classes (SKY, TRIP,
///   EVENT, gpsd's VERSION and DEVICES…) and TPVs without a fix (mode 0 or 1, no time or no
///   position) are no positions.
/// - A GeoJSON Feature whose `properties` are such a TPV (`--format geojson`).
/// - An OwnTracks `location` (`--format owntracks`): `tst` in seconds, `vel` in km/h, `acc`
///   as the error estimate, `alt` as the altitude above sea level; its other types (`lwt`,
///   `transition`…) are no positions. OwnTracks says no fix mode: loctrack writes `alt` only
///   from gpsd's `altMSL`, which a 3D fix has, so a location with `alt` counts as 3D.
///
/// The altitudes, the mode and the status are read for the page's track (`serve --track`).
enum JSONRecord {
    static func outcome(of value: JSONValue) -> RecordOutcome {
        guard value.objectValue != nil else { return .unreadable("a JSON \(value.kindDescription), not an object") }
        if let kind = value["class"] {
            guard kind.stringValue == "TPV" else { return .notAPosition }
            return tpv(value)
        }
        if value["type"]?.stringValue == "Feature" {
            guard let properties = value["properties"], properties["class"]?.stringValue == "TPV" else {
                return .unreadable("a GeoJSON Feature whose properties are not a TPV")
            }
            return tpv(properties)
        }
        if let type = value["_type"] {
            guard type.stringValue == "location" else { return .notAPosition }
            return ownTracksLocation(value)
        }
        return .unreadable("a JSON object that is no fix (no TPV class, GeoJSON Feature or OwnTracks location)")
    }

    private static func tpv(_ report: JSONValue) -> RecordOutcome {
        if let mode = report["mode"]?.doubleValue, mode < 2 { return .notAPosition }
        guard let timeValue = report["time"], let latitudeValue = report["lat"], let longitudeValue = report["lon"] else {
            return .notAPosition
        }
        guard let text = timeValue.stringValue, let time = RecordedTime.timestamp(text) else {
            return .unreadable("time \(describe(timeValue)) is not an ISO 8601 time")
        }
        guard let latitude = latitudeValue.doubleValue else { return .unreadable("lat \(describe(latitudeValue)) is not a number") }
        guard let longitude = longitudeValue.doubleValue else { return .unreadable("lon \(describe(longitudeValue)) is not a number") }
        return .checked(
            time: time, latitude: latitude, longitude: longitude, speed: report["speed"]?.doubleValue,
            horizontalError: report["eph"]?.doubleValue, device: report["device"]?.stringValue,
            altitudeMSL: report["altMSL"]?.doubleValue, altitudeHAE: report["altHAE"]?.doubleValue,
            isThreeD: report["mode"]?.doubleValue == 3, isDGPS: report["status"]?.doubleValue == 2)
    }

    private static func ownTracksLocation(_ message: JSONValue) -> RecordOutcome {
        guard let seconds = message["tst"]?.integerValue else { return .unreadable("an OwnTracks location without a whole tst") }
        guard let latitude = message["lat"]?.doubleValue, let longitude = message["lon"]?.doubleValue else {
            return .unreadable("an OwnTracks location without a numeric lat and lon")
        }
        let altitude = message["alt"]?.doubleValue
        return .checked(
            time: Timestamp(seconds: Int64(seconds)), latitude: latitude, longitude: longitude,
            speed: message["vel"]?.doubleValue.map { $0 / 3.6 }, horizontalError: message["acc"]?.doubleValue, device: nil,
            altitudeMSL: altitude, isThreeD: altitude != nil)
    }

    /// A value as it reads in a message: a string in quotes, else its kind.
    private static func describe(_ value: JSONValue) -> String {
        if let text = value.stringValue { return "\"\(text.prefix(40))\"" }
        if let number = value.doubleValue { return "\(number)" }
        return value.kindDescription
    }
}
