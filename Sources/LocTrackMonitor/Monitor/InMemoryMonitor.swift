package import LocTrack
import LocTrackSystem

/// A monitor's regions decided in memory from fixes, for a program that shows them and
/// must leave the monitor alone (`loctrack serve --monitor NAME`).
///
/// It starts from the conditions and states in the monitor's state file, read once, and
/// decides with the same engine and rules as ``GeofenceMonitor``. It never takes the run
/// lock (a `monitor run` may be running) and never writes: its decisions, and the events
/// they cause, stay in this value.
package struct InMemoryMonitor: Sendable {
    private var engine: GeofenceEngine

    /// The monitor `name` as stored, or nil when it has no state file (it was never
    /// given a region).
    /// - Parameters:
    ///   - directory: where its state file is; default as ``GeofenceMonitor``'s.
    ///   - dwell: as `monitor run --dwell` (default 0, as there).
    /// - Throws: ``GeofenceError`` for an invalid name, a state file that cannot be read
    ///   (`.stateFileIO`) or is not a monitor's (`.corruptStateFile`).
    package static func load(
        named name: String, directory: String? = nil, dwell: Duration = .zero,
        environment: [String: String] = MonitorStore.processEnvironment
    ) throws(GeofenceError) -> InMemoryMonitor? {
        let store = try MonitorStore(name: name, directory: directory, environment: environment)
        guard let snapshot = try store.readWithoutWriting() else { return nil }
        return InMemoryMonitor(snapshot: snapshot, dwell: dwell)
    }

    package init(snapshot: MonitorSnapshot, dwell: Duration = .zero) {
        engine = GeofenceEngine(snapshot: snapshot, rules: GeofenceRules(dwellSeconds: dwell.seconds))
    }

    /// The monitor's name.
    package var name: String { engine.name }

    /// The conditions with their current states, in the order they were added.
    package var conditions: [MonitoredCondition] { engine.snapshot.conditions }

    /// The events `fix` causes (transitions and accuracy limits), as `monitor run` would
    /// report them; a fix older than the newest one used decides nothing.
    package mutating func process(_ fix: Fix) -> [GeofenceEvent] {
        engine.process(fix)
    }
}
