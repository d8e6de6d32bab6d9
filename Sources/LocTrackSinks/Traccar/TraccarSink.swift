import LocTrack
import LocTrackDistance
import LocTrackProcess
import LocTrackSystem
package import LocTrackTraccar
import Synchronization

/// `--publish http(s)://HOST:PORT/?id=DEVICE`: each accepted fix goes to a Traccar server
/// as an OsmAnd position, with the odometer and motion the command measured, through the
/// crash-safe spool and the uplink's own thread (``TraccarUplink``): strictly oldest first,
/// one request at a time on one kept-alive connection.
///
/// `take` decides and spools on the caller's thread and never touches the network: the
/// gate, the thinning and the query under this sink's own lock (never contended: the
/// fan-out calls one sink at a time), the notices printed and the spool written after it.
package final class TraccarSink: Sink {
    private struct Decisions {
        var positions: TraccarPositions
        /// The latest SKY report: the satellites a position says it used and saw.
        var sky: SkyView?
    }

    private let uplink: TraccarUplink
    private let decisions: Mutex<Decisions>
    private let spooledEvents = Atomic(0)
    /// The first fatal status (the spool failed): the command then ends with it.
    private let fatal = FirstFatalStatus<UplinkStatus>()

    /// Opens the spool and starts the uplink.
    /// - Parameter onFatal: called once when the uplink cannot go on (the command then finishes).
    package init(
        options: TraccarOptions, environment: [String: String], onFatal: @escaping @Sendable () -> Void
    ) throws(TraccarSinkError) {
        guard let spoolDirectory = options.spoolDirectory(environment: environment) else {
            throw .noSpoolDirectory
        }
        let configuration = TraccarUplinkConfiguration(
            url: options.url, caFile: options.caFile, spoolDirectory: spoolDirectory,
            spoolLimitBytes: options.spoolLimitBytes, userAgent: "loctrack/\(LocTrackVersion.number)")
        let fatal = self.fatal
        do {
            uplink = try TraccarUplink(configuration) { status in
                guard status.isFatal else {
                    printError(status.description)
                    return
                }
                if fatal.record(status) { onFatal() }
            }
        } catch {
            throw .uplink(error)
        }
        decisions = Mutex(Decisions(positions: TraccarPositions(deviceID: options.url.deviceID, thinning: options.thinning)))
    }

    package func take(_ batch: SinkBatch) -> Bool {
        guard case .gpsd(let gpsd) = batch, !gpsd.odometer.isEmpty else {
            spooledEvents.add(batch.eventCount, ordering: .relaxed)
            return true
        }
        let now = wallClockSeconds()
        let (queries, notices) = decisions.withLock { decisions -> ([[UInt8]], [String]) in
            var queries: [[UInt8]] = [], notices: [String] = []
            for (index, event) in gpsd.events.enumerated() {
                switch event {
                case .sky(let sky):
                    decisions.sky = sky
                case .fix(let fix):
                    let (query, notice) = decisions.positions.take(
                        fix, odometer: gpsd.odometer[index], sky: decisions.sky, wallClockSeconds: now)
                    if let query { queries.append(query) }
                    if let notice { notices.append(notice) }
                case .status:
                    break
                }
            }
            return (queries, notices)
        }
        for notice in notices { printError(notice) }
        guard queries.isEmpty || uplink.publish(queries) else { return false }
        spooledEvents.add(batch.eventCount, ordering: .relaxed)
        return true
    }

    package var settledEvents: Int { spooledEvents.load(ordering: .relaxed) }

    package func finish(promptly: Bool) async -> SinkOutcome {
        await uplink.finish(promptly: promptly)
        if let status = fatal.first { return .failed(.outputFailed, message: status.description) }
        return .done
    }
}

/// Why a Traccar sink could not start.
package enum TraccarSinkError: Error, CustomStringConvertible {
    /// No `--spool`, and no state folder (neither `XDG_STATE_HOME` nor `HOME` is an absolute
    /// path, and the password database has no home).
    case noSpoolDirectory
    case uplink(TraccarUplinkError)

    /// libcurl (Debian's libcurl4) could not be loaded.
    package var missesLibcurl: Bool {
        if case .uplink(.curl) = self { return true }
        return false
    }

    package var description: String {
        switch self {
        case .noSpoolDirectory:
            "traccar: no folder for the spool: give --spool DIR (neither XDG_STATE_HOME nor HOME is an absolute path, "
                + "and the password database has no home)"
        case .uplink(let error): error.description
        }
    }
}
