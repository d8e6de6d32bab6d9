package import LocTrackDistance
import LocTrack

/// A trip as a line: the `TRIP` objects of `stream --trips`, `monitor run --trips` and
/// `loctrack trips` (docs/json.md), and their text for a terminal. Metres, seconds and m/s,
/// with the decimals of gpsd's own fields for the same units.
package enum TripLine {
    /// `{"class":"TRIP","state":"start",…}` or `{"class":"TRIP","state":"end",…}` and a newline.
    package static func writeJSON(_ trip: TripEvent, into line: inout OutputBytes) {
        line.append("{\"class\":\"TRIP\"")
        switch trip {
        case .started(let start, let device):
            line.append(",\"state\":\"start\"")
            appendDevice(device, to: &line)
            line.append(",\"start\":\"")
            line.append(start.time)
            line.append(byte: 0x22)
            appendEndpoint("start", start, to: &line)
            appendNumber("odometer", start.odometer, 3, to: &line)
        case .ended(let summary):
            line.append(",\"state\":\"end\"")
            writeSummaryFields(summary, into: &line)
        }
        line.append("}\n")
    }

    /// One finished trip as `loctrack trips` writes it in JSON lines (no `state`).
    package static func writeJSON(_ summary: TripSummary, into line: inout OutputBytes) {
        line.append("{\"class\":\"TRIP\"")
        writeSummaryFields(summary, into: &line)
        line.append("}\n")
    }

    /// The fields every finished trip has, each after a comma.
    private static func writeSummaryFields(_ summary: TripSummary, into line: inout OutputBytes) {
        appendDevice(summary.device, to: &line)
        line.append(",\"start\":\"")
        line.append(summary.start.time)
        line.append("\",\"end\":\"")
        line.append(summary.end.time)
        line.append(byte: 0x22)
        appendNumber("distance", summary.distance, 1, to: &line)
        appendNumber("duration", summary.duration, 3, to: &line)
        appendNumber("maxSpeed", summary.maxSpeed, 3, to: &line)
        appendNumber("averageSpeed", summary.averageSpeed, 3, to: &line)
        appendEndpoint("start", summary.start, to: &line)
        appendEndpoint("end", summary.end, to: &line)
        appendNumber("odometer", summary.end.odometer, 3, to: &line)
    }

    /// A trip event for a person at a terminal.
    package static func text(_ trip: TripEvent) -> String {
        switch trip {
        case .started(let start, _):
            var line = start.time.iso8601 + "  trip started at "
            line.appendFixed(start.latitude, decimals: 7)
            line += ", "
            line.appendFixed(start.longitude, decimals: 7)
            return line + "\n"
        case .ended(let summary):
            return summary.end.time.iso8601 + "  trip ended: " + text(summary) + "\n"
        }
    }

    /// `12.345 km in 0:23:05, max 27.8 m/s, average 8.9 m/s`.
    package static func text(_ summary: TripSummary) -> String {
        var line = ""
        line.appendFixed(summary.distance / 1000, decimals: 3)
        line += " km in " + duration(summary.duration) + ", max "
        line.appendFixed(summary.maxSpeed, decimals: 1)
        line += " m/s, average "
        line.appendFixed(summary.averageSpeed, decimals: 1)
        return line + " m/s"
    }

    /// `H:MM:SS` of whole seconds.
    package static func duration(_ seconds: Double) -> String {
        let whole = seconds.isFinite ? max(0, Int(seconds.rounded())) : 0
        let minutes = whole / 60 % 60, secs = whole % 60
        return "\(whole / 3600):\(minutes < 10 ? "0" : "")\(minutes):\(secs < 10 ? "0" : "")\(secs)"
    }

    private static func appendEndpoint(_ prefix: StaticString, _ endpoint: TripEndpoint, to line: inout OutputBytes) {
        line.append(",\"")
        line.append(prefix)
        line.append("Lat\":")
        line.appendFixed(endpoint.latitude, decimals: 9)
        line.append(",\"")
        line.append(prefix)
        line.append("Lon\":")
        line.appendFixed(endpoint.longitude, decimals: 9)
    }

    private static func appendDevice(_ device: String?, to line: inout OutputBytes) {
        guard let device else { return }
        line.append(",\"device\":\"")
        line.appendJSONEscaped(device)
        line.append(byte: 0x22)
    }

    private static func appendNumber(_ name: StaticString, _ value: Double, _ decimals: Int, to line: inout OutputBytes) {
        line.append(",\"")
        line.append(name)
        line.append("\":")
        line.appendFixed(value.isFinite ? value : 0, decimals: decimals)
    }
}
