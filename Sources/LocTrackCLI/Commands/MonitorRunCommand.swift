import Glibc
import LocTrack
import LocTrackMQTT

/// `loctrack monitor run`: one line per monitor event until SIGINT/SIGTERM, with
/// `stream`'s reconnects and its reports on stderr.
struct MonitorRunCommand {
    let options: MonitorCommand.Run
    let output: StandardOutput

    func run() async -> ExitCode {
        let sinksGiven = !options.publishes.isEmpty || !options.records.isEmpty
        let format = options.format ?? (output.isTerminal && !sinksGiven ? .text : .json)
        let monitor: GeofenceMonitor
        do {
            monitor = try GeofenceMonitor(
                named: options.name, dwell: .milliseconds(Int64((options.dwellSeconds * 1000).rounded())))
            try await monitor.holdRunLock()
        } catch {
            printError(error.description)
            return error.exitCode
        }
        let reporter = StatusReporter(verbose: options.verbose)
        let session = GPSDSession(source: options.source, reconnectPolicy: options.reconnect ? .automatic : .never)
        let shutdown: StreamShutdown
        do {
            shutdown = try StreamShutdown.start(finishing: session)
        } catch {
            printError("cannot watch for signals: \(error)")
            return .unavailable
        }
        // Only OwnTracks needs each transition's previous state.
        var transitions = format == .owntracks ? await OwnTracksTransitions(monitor: monitor) : nil
        // A monitor's events go to TOPIC/event, where OwnTracks puts transitions.
        let sinks: SinkSet
        switch await SinkFactory.start(
            publishes: options.publishes, records: options.records, recordFormat: { _ in Self.recordLayoutFormat },
            topic: { $0.broker.topic + "/event" }, ownTracks: format == .owntracks, verbose: options.verbose,
            output: output, session: session)
        {
        case .ready(let started): sinks = started
        case .failed(let code): return code
        }
        var destinations = sinks.members.map { Destination(sink: $0.sink, framed: $0.role.isTrackFile) }
        var failure: (any Error)?
        var events = session.events().makeAsyncIterator()
        do {
            while let batch = try await events.nextBatch() {
                for case .status(let status) in batch { reporter.report(status) }
                for event in try await monitor.process(batch) {
                    let line: String? = switch format {
                    case .json: GeofenceEventLine.json(event)
                    case .text: GeofenceEventLine.text(event)
                    case .owntracks: await transitions?.line(for: event)
                    }
                    guard let line else { continue }
                    for index in destinations.indices { destinations[index].add(line, of: event) }
                }
                var open = true
                for index in destinations.indices {
                    let sink = destinations[index].sink
                    if await !destinations[index].pending.send(to: sink) { open = false }
                }
                if !open { break }
            }
        } catch {
            failure = error
        }
        session.finish()
        return await shutdown.exitCode(sinks: sinks, failure: failure)
    }

    /// One sink and the lines gathered for it.
    private struct Destination {
        let sink: any LineSink
        /// A track writer's: each line in a ``RecordFrame``.
        let framed: Bool
        var pending = PendingLines()

        mutating func add(_ line: String, of event: GeofenceEvent) {
            if framed {
                // The event's fix time picks the file (`--output` fields).
                let seconds = event.fix?.time.seconds ?? Int64(time(nil))
                RecordFrame.append(seconds: seconds, startsSegment: false, into: &pending.text) { $0.append(line) }
            } else {
                pending.text.append(line)
            }
            pending.lines += 1
        }
    }
}

extension SinkSet.Role {
    var isTrackFile: Bool {
        if case .trackFile = self { true } else { false }
    }
}

extension MonitorRunCommand {
    /// Every monitor format is one line per event: to the track writer, the layout of JSON
    /// lines (no header, whole lines appended).
    static let recordLayoutFormat = OutputFormat.json
}

/// OwnTracks needs each transition's previous state (a leave follows an enter) and the
/// time its region was added (`wtst`).
struct OwnTracksTransitions {
    private let monitor: GeofenceMonitor
    private var states: [String: GeofenceState] = [:]

    init(monitor: GeofenceMonitor) async {
        self.monitor = monitor
        for identifier in await monitor.identifiers {
            states[identifier] = await monitor.record(for: identifier)?.state
        }
    }

    mutating func line(for event: GeofenceEvent) async -> String? {
        let previous = states[event.identifier] ?? .unknown
        states[event.identifier] = event.state
        let added = await monitor.record(for: event.identifier)?.added ?? Timestamp(seconds: 0)
        return GeofenceEventLine.ownTracks(event, previous: previous, regionAdded: added.seconds)
    }
}

extension GeofenceError {
    /// The exit code for this error (docs/exit-codes.md).
    var exitCode: ExitCode {
        switch self {
        case .invalidLatitude, .invalidLongitude, .invalidRadius, .invalidGeometry, .invalidName,
             .invalidIdentifier, .unknownIdentifier:
            .usage
        case .corruptStateFile:
            .dataError
        case .stateFileIO:
            .outputFailed
        case .alreadyOpen, .alreadyRunning:
            .temporaryFailure
        }
    }
}
