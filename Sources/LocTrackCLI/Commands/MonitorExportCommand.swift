import LocTrack
import LocTrackMonitor

/// `loctrack monitor export`: the monitor's regions as one OwnTracks `waypoints` message
/// on stdout (``OwnTracksWaypoints``), to publish on `owntracks/USER/DEVICE/waypoints`.
struct MonitorExportCommand {
    let name: String
    let output: StandardOutput

    func run() async -> ExitCode {
        let records: [GeofenceRecord]
        do {
            let monitor = try GeofenceMonitor(named: name)
            var collected: [GeofenceRecord] = []
            for identifier in await monitor.identifiers {
                if let record = await monitor.record(for: identifier) { collected.append(record) }
            }
            records = collected
        } catch {
            printError(error.description)
            return error.exitCode
        }
        do {
            try output.write(OwnTracksWaypoints.message(records))
            return .success
        } catch {
            return error == .closed ? .success : .outputFailed
        }
    }
}
