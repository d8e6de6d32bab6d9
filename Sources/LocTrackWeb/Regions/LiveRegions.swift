import LocTrack
import LocTrackFormats
import LocTrackProcess
package import LocTrackMonitor

/// The regions of `serve --monitor NAME` with the states `serve` decides for them.
///
/// Read once from the monitor's state file (`$XDG_STATE_HOME/loctrack/NAME.monitor.json`),
/// without its run lock and without writing anything (a `monitor run` may be running);
/// then decided in memory from the live fixes by the monitor's own engine, with
/// `monitor run`'s rules and its default dwell (none). Not persisted: the monitor's file
/// is the monitor's (docs/serve.md, "Regions").
public struct LiveRegions: Sendable {
    private var monitor: InMemoryMonitor
    /// `/api/regions`, rebuilt when a state changes.
    private(set) var geoJSON: String

    /// The monitor's name.
    public var name: String { monitor.name }

    /// The number of regions.
    public var count: Int { monitor.conditions.count }

    package init(_ monitor: InMemoryMonitor) {
        self.monitor = monitor
        geoJSON = RegionsGeoJSON.featureCollection(monitor.conditions)
    }

    /// The regions of the monitor `name`, from its state file.
    /// - Throws: 64 for an invalid name or a monitor without a state file (it has no
    ///   regions: the message says how to add some), 65 for a corrupt state file (as
    ///   `monitor run`), 74 for one that cannot be read.
    ///   `dwellSeconds` is `--dwell`, as `monitor run --dwell`.
    public static func load(monitor name: String, dwellSeconds: Double = 0) throws(LiveSetupError) -> LiveRegions {
        try load(monitor: name, directory: nil, dwellSeconds: dwellSeconds)
    }

    package static func load(
        monitor name: String, directory: String?, dwellSeconds: Double = 0,
        environment: [String: String] = MonitorStore.processEnvironment
    ) throws(LiveSetupError) -> LiveRegions {
        let loaded: InMemoryMonitor?
        // Converted as `monitor run` converts its --dwell, so both decide alike.
        let dwell = Duration.milliseconds(Int64((dwellSeconds * 1000).rounded()))
        do {
            loaded = try InMemoryMonitor.load(named: name, directory: directory, dwell: dwell, environment: environment)
        } catch {
            throw LiveSetupError(error.description, exitCode: error.exitCode.rawValue)
        }
        guard let loaded else {
            throw LiveSetupError(
                "monitor '\(name)' has no regions (no state file); add one with `loctrack monitor add --name \(name) …`",
                exitCode: 64)
        }
        return LiveRegions(loaded)
    }

    /// The events `fix` causes, as `monitor run --format json` lines without their newline.
    mutating func process(_ fix: Fix) -> [String] {
        let events = monitor.process(fix)
        guard !events.isEmpty else { return [] }
        if events.contains(where: { !$0.accuracyLimited }) {
            geoJSON = RegionsGeoJSON.featureCollection(monitor.conditions)
        }
        return events.map { String(GeofenceEventLine.json($0).dropLast()) }
    }

    /// `/api/regions` without `--monitor`.
    static let emptyGeoJSON = "{\"type\":\"FeatureCollection\",\"features\":[]}"
}
