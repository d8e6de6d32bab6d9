import LocTrack
import LocTrackMonitor
import LocTrackMQTT
import LocTrackSystem

/// `loctrack monitor run`: one line per monitor event until SIGINT/SIGTERM, with
/// `stream`'s reconnects and its reports on stderr, to stdout or to every sink.
///
/// Events are delivered at least once: the monitor saves each decision with its events
/// (its outbox); the events go to the sinks; once every sink has them for good
/// (``LineSink/settledLines``) the monitor is told, and a run that ended before that (a
/// SIGKILL, a power cut, a failed sink) has them delivered again by the next run, first.
struct MonitorRunCommand {
    let options: MonitorCommand.Run
    let output: StandardOutput
    /// The executor this command's task runs on, given to its gpsd session (``CLI/runBlocking(_:)``).
    let consumerExecutor: ConsumerExecutor?

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
        let session = GPSDSession(
            source: options.source, reconnectPolicy: options.reconnect ? .automatic : .never,
            reportsSatellites: options.publishes.contains { $0.homeAssistant != nil }, consumersRunOn: consumerExecutor)
        let shutdown: StreamShutdown
        do {
            shutdown = try StreamShutdown.start(finishing: session)
        } catch {
            printError("cannot watch for signals: \(error)")
            return .unavailable
        }
        // A monitor's events go to TOPIC/event, where OwnTracks puts transitions.
        let sinks: SinkSet
        switch await SinkFactory.start(
            publishes: options.publishes, records: options.records, recordFormat: { _ in Self.recordLayoutFormat },
            topic: { $0.broker.topic + "/event" }, ownTracks: format == .owntracks, regions: true,
            verbose: options.verbose, output: output, session: session)
        {
        case .ready(let started): sinks = started
        case .failed(let code): return code
        }
        var delivery = EventDelivery(
            sinks: sinks, format: format, ownTracks: format == .owntracks
                ? await OwnTracksTransitions(
                    monitor: monitor,
                    trackerID: options.trackerID ?? PublishOptions.defaultTrackerID(hostName: HostName.current()))
                : nil)
        var failure: (any Error)?
        let inputs = MonitorInputs(session: session)
        let homeAssistant = HomeAssistantRegions(sinks: sinks.homeAssistants)
        do {
            // What the last run saved and could not see delivered goes first.
            var open = await delivery.deliver(await monitor.undelivered())
            open = await homeAssistant.update(from: monitor) && open
            await monitor.confirmDelivery(through: delivery.settledSequence)
            loop: for await input in inputs.inputs where open {
                let deliveries: [GeofenceDelivery]
                switch input {
                case .batch(let batch):
                    for case .status(let status) in batch { reporter.report(status) }
                    open = homeAssistant.take(batch) && open
                    delivery.ownTracks?.consider(batch)
                    deliveries = try await monitor.decide(batch)
                    inputs.took()
                case .tick:
                    inputs.tookTick()
                    deliveries = try await monitor.decide(EmptyCollection())
                case .failed(let error):
                    failure = error
                    break loop
                }
                open = await delivery.deliver(deliveries) && open
                open = await homeAssistant.update(from: monitor) && open
                // Saved at once (a journal line; only when an event was confirmed, so rarely),
                // so that a crash repeats only what had not arrived everywhere yet.
                await monitor.confirmDelivery(through: delivery.settledSequence)
                try await monitor.saveConfirmations()
            }
        } catch {
            failure = error
        }
        session.finish()
        await inputs.stop()
        let outcomes = await shutdown.finish(sinks)
        // What the sinks finished writing (a closed stdout or a failed sink settles less).
        delivery.settle()
        await monitor.confirmDelivery(through: delivery.settledSequence)
        do {
            try await monitor.saveConfirmations()
        } catch {
            failure = failure ?? error
        }
        return shutdown.exitCode(outcomes: outcomes, failure: failure)
    }
}

/// The Home Assistant brokers of `monitor run`: gpsd's events for the tracker and the
/// sensors, and the regions' presence from the monitor's states after each decision.
struct HomeAssistantRegions {
    let sinks: [HomeAssistantSink]

    func take(_ batch: [GPSDEvent]) -> Bool {
        guard !sinks.isEmpty else { return true }
        var open = true
        for sink in sinks where !sink.take(batch) { open = false }
        return open
    }

    /// Tells the brokers the monitor's regions and states (only what changed goes out).
    func update(from monitor: GeofenceMonitor) async -> Bool {
        guard !sinks.isEmpty else { return true }
        var regions: [String: HomeAssistantUpdates.Region] = [:]
        for record in await monitor.records {
            regions[record.identifier] = .init(name: record.displayName, inside: record.state == .satisfied)
        }
        var open = true
        for sink in sinks where !sink.setRegions(regions) { open = false }
        return open
    }
}

/// Hands a monitor's events to every sink as lines, and works out which of them have
/// arrived everywhere.
struct EventDelivery {
    private struct Destination {
        let sink: any LineSink
        /// A track writer's: each line in a ``RecordFrame``.
        let framed: Bool
        var pending = PendingLines()

        mutating func add(_ line: String, of event: GeofenceEvent) {
            if framed {
                // The event's fix time picks the file (`--output` fields).
                let seconds = event.fix?.time.seconds ?? wallClockSeconds()
                RecordFrame.append(seconds: seconds, startsSegment: false, into: &pending.text) { $0.append(line) }
            } else {
                pending.text.append(line)
            }
            pending.lines += 1
        }
    }

    private var destinations: [Destination]
    private let format: MonitorCommand.Run.Format
    var ownTracks: OwnTracksTransitions?
    /// Each event sent, with the number of lines every sink had been given once it was
    /// (an event without a line in this format is settled with the lines before it).
    private var sent: [(sequence: Int, linesThrough: Int)] = []
    private var linesGiven = 0
    /// The newest event every sink has for good.
    private(set) var settledSequence = 0

    init(sinks: SinkSet, format: MonitorCommand.Run.Format, ownTracks: OwnTracksTransitions?) {
        destinations = sinks.lineMembers.map { Destination(sink: $0.sink, framed: $0.role.isTrackFile) }
        self.format = format
        self.ownTracks = ownTracks
    }

    /// Sends `deliveries`' lines to every sink, then notes what has settled everywhere.
    /// - Returns: false once a sink takes nothing more.
    mutating func deliver(_ deliveries: [GeofenceDelivery]) async -> Bool {
        for delivery in deliveries {
            let event = delivery.event
            let line: String? = switch format {
            case .json: GeofenceEventLine.json(event)
            case .text: GeofenceEventLine.text(event)
            case .owntracks: await ownTracks?.line(for: event)
            }
            if let line {
                for index in destinations.indices { destinations[index].add(line, of: event) }
                linesGiven += 1
            }
            sent.append((delivery.sequence, linesGiven))
        }
        var open = true
        for index in destinations.indices {
            let sink = destinations[index].sink
            if await !destinations[index].pending.send(to: sink) { open = false }
        }
        settle()
        return open
    }

    /// Moves ``settledSequence`` past every event whose lines all sinks have settled.
    mutating func settle() {
        let settledLines = destinations.map(\.sink.settledLines).min() ?? linesGiven
        var settled = 0
        while settled < sent.count, sent[settled].linesThrough <= settledLines { settled += 1 }
        if settled > 0 {
            settledSequence = sent[settled - 1].sequence
            sent.removeFirst(settled)
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

/// OwnTracks transitions need the time each region was added (`wtst`, how OwnTracks
/// names a region), its title (`desc`), the tracker id (`tid`, as in the locations), and
/// a position for the `leave` of a region removed while inside (its event has no fix of
/// its own): the newest fix seen that has an `eph`, else the newest fix (Home Assistant
/// takes a `leave`'s position only with an `acc`, though it leaves the region without).
struct OwnTracksTransitions {
    private let monitor: GeofenceMonitor
    let trackerID: String
    /// When each region was added and its title, kept so that a removed region's `leave`
    /// still has them.
    private var added: [String: Int64] = [:]
    private var titles: [String: String] = [:]
    /// The regions whose `added` and title are noted.
    private var noted: Set<String> = []
    private var lastFix: Fix?
    private var lastFixWithAccuracy: Fix?

    init(monitor: GeofenceMonitor, trackerID: String) async {
        self.monitor = monitor
        self.trackerID = trackerID
        for identifier in await monitor.identifiers {
            note(await monitor.record(for: identifier), for: identifier)
        }
    }

    /// Notes the newest fix of a batch, and the newest that has an error estimate.
    mutating func consider(_ batch: [GPSDEvent]) {
        var newest = true
        for case .fix(let fix) in batch.reversed() {
            if newest { lastFix = fix }
            newest = false
            if OwnTracksEncoder.accuracy(fix) != nil {
                lastFixWithAccuracy = fix
                return
            }
        }
    }

    mutating func line(for event: GeofenceEvent) async -> String? {
        // A removed region's leave keeps what its enter had: the record under its id may
        // already be the region that replaced it, with another title, and Home Assistant
        // leaves only a region of the enter's `desc`.
        if event.state != .unmonitored || !noted.contains(event.identifier) {
            note(await monitor.record(for: event.identifier), for: event.identifier)
        }
        return GeofenceEventLine.ownTracks(
            event, regionAdded: added[event.identifier] ?? 0, lastFix: lastFixWithAccuracy ?? lastFix,
            title: titles[event.identifier],
            trackerID: trackerID)
    }

    private mutating func note(_ record: GeofenceRecord?, for identifier: String) {
        guard let record else { return }
        added[identifier] = record.added?.seconds
        titles[identifier] = record.title
        noted.insert(identifier)
    }
}

extension GeofenceError {
    /// The exit code for this error (docs/exit-codes.md).
    package var exitCode: ExitCode {
        switch self {
        case .invalidLatitude, .invalidLongitude, .invalidRadius, .invalidGeometry, .invalidName,
             .invalidIdentifier, .invalidTitle, .unknownIdentifier:
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
