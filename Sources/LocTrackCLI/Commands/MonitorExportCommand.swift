import LocTrackSystem
import LocTrack
import LocTrackMonitor
import LocTrackFormats
import LocTrackProcess
import LocTrackSinks

/// `loctrack monitor export`: the monitor's regions as one OwnTracks `waypoints` message
/// on stdout (``OwnTracksWaypoints``), to publish on `owntracks/USER/DEVICE/waypoints`.
struct MonitorExportCommand {
    let name: String
    let output: StandardOutput

    func run() async -> ExitCode {
        let records: [GeofenceRecord]
        do {
            records = try await GeofenceMonitor(named: name).records
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
