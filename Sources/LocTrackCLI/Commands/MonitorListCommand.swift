import LocTrackSystem
import LocTrack
import LocTrackMonitor
import LocTrackFormats
import LocTrackProcess
import LocTrackSinks

/// `loctrack monitor list`: the conditions, their states and last events.
struct MonitorListCommand {
    let name: String
    let format: MonitorCommand.ListFormat
    let output: StandardOutput

    func run() async -> ExitCode {
        let records: [GeofenceRecord]
        do {
            records = try await GeofenceMonitor(named: name).records
        } catch {
            printError(error.description)
            return error.exitCode
        }
        let text = records.map { format == .json ? json($0) : self.text($0) }.joined()
        do {
            try output.write(text)
            return .success
        } catch {
            return error == .closed ? .success : .outputFailed
        }
    }

    /// `{"monitor":…,"id":…,"title":…,"state":…,"region":<GeoJSON geometry>,"lastEvent":<EVENT>}`
    /// (`title` only when the region has one).
    private func json(_ record: GeofenceRecord) -> String {
        var line = "{\"monitor\":\"\(JSONText.escaped(name))\",\"id\":\"\(JSONText.escaped(record.identifier))\""
        if let title = record.title { line += ",\"title\":\"\(JSONText.escaped(title))\"" }
        line += ",\"state\":\"\(record.state)\",\"region\":\(record.condition.geoJSONGeometry.serialized)"
        if let event = record.lastEvent {
            line += ",\"lastEvent\":" + String(GeofenceEventLine.json(event).dropLast())
        }
        return line + "}\n"
    }

    /// `home  "Home"  circle 52.5000000, 13.4000000 r 100 m  satisfied since 2026-…`
    /// (the title in quotes only when the region has one; `…, accuracy too poor to decide
    /// at 2026-…` after an accuracy limit).
    private func text(_ record: GeofenceRecord) -> String {
        var line = "\(record.identifier)  "
        if let title = record.title { line += "\"\(JSONText.escaped(title))\"  " }
        switch record.condition.shape {
        case .circle(let center, let radius):
            line += "circle "
            line.appendFixed(center.latitude, decimals: 7)
            line += ", "
            line.appendFixed(center.longitude, decimals: 7)
            line += " r "
            line.appendFixed(radius, decimals: radius < 10 ? 1 : 0)
            line += " m"
        case .polygons(let polygons):
            let points = polygons.reduce(0) { $0 + $1.exterior.count - 1 }
            line += polygons.count == 1 ? "polygon of \(points) points" : "\(polygons.count) polygons, \(points) points"
        }
        line += "  \(record.state)"
        if let event = record.lastEvent, let time = event.time {
            // An accuracy limit leaves the state as it was: its time is not when the state began.
            line += event.accuracyLimited ? ", accuracy too poor to decide at \(time.iso8601)" : " since \(time.iso8601)"
        }
        return line + "\n"
    }
}
