import LocTrackRecordedLines

/// What a point of an XML track said, as text, and the point it makes: GPX's `<trkpt>` and
/// TCX's `<Trackpoint>` read the same fields under other names, and are judged alike (a bad
/// number or time is unreadable, a missing time is no damage: skipped and counted).
struct XMLPointText {
    /// How the messages name the point and its fields: `a trkpt`, `lat`, `lon`, `time`.
    struct Names {
        let point: String
        let latitude: String
        let longitude: String
        let time: String
    }

    var latitude: String?
    var longitude: String?
    var time: String?
    var speed: String?
    var horizontalError: String?

    /// The point, read with `times` (which keeps the last date's midnight: a track's points
    /// share their date).
    func outcome(_ names: Names, times: inout RecordedTime.Reader) -> RecordOutcome {
        guard let latitudeText = latitude, let longitudeText = longitude else {
            return .unreadable("\(names.point) without \(names.latitude) and \(names.longitude)")
        }
        guard let latitude = decimalNumber(latitudeText) else { return .unreadable(Self.notANumber(names.latitude, latitudeText)) }
        guard let longitude = decimalNumber(longitudeText) else { return .unreadable(Self.notANumber(names.longitude, longitudeText)) }
        guard let timeText = time, !timeText.trimmingBlanks().isEmpty else { return .untimed }
        guard let time = times.timestamp(timeText) else {
            return .unreadable("\(names.time) \"\(timeText.trimmingBlanks().prefix(40))\" is not an ISO 8601 time")
        }
        return .checked(
            time: time, latitude: latitude, longitude: longitude, speed: speed.flatMap(decimalNumber),
            horizontalError: horizontalError.flatMap(decimalNumber), device: nil)
    }

    private static func notANumber(_ name: String, _ text: String) -> String {
        "\(name) \"\(text.trimmingBlanks().prefix(40))\" is not a number"
    }
}
