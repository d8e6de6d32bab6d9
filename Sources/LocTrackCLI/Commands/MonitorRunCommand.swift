import LocTrackMQTT
import LocTrack
import LocTrackMonitor
import LocTrackSystem
import LocTrackFormats
import LocTrackProcess
import LocTrackSinks

/// `loctrack monitor run`: one line per monitor event until SIGINT/SIGTERM, with
/// `stream`'s reconnects and its reports on stderr, to stdout or to every sink.
///
/// Events are delivered at least once: the monitor saves each decision with its events
/// (its outbox); the events go to the sinks (one ``SinkFanOut``, as `stream`'s); once every
/// sink has them for good (``Sink/settledEvents``) the monitor is told, and a run that
/// ended before that (a SIGKILL, a power cut, a failed sink) has them delivered again by
/// the next run, first.
struct MonitorRunCommand {
    let options: MonitorCommand.Run
    let output: StandardOutput
    /// The executor this command's task runs on, given to its gpsd session (``CLI/runBlocking(_:)``).
    let consumerExecutor: ConsumerExecutor?

    func run() async -> ExitCode {
        let sinksGiven = !options.sinks.isEmpty
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
        // `--format json` as given is the one fix format a monitor's sinks follow (a UDP
        // listener's); its other formats are event formats.
        let fixFormat: OutputFormat? = options.format == .json ? .json : nil
        let needs = SinkPipeline.needs(of: options.sinks, writing: fixFormat)
        let session = GPSDSession(
            source: options.source, reconnectPolicy: options.reconnect ? .automatic : .never,
            reportsSatellites: needs.contains(.satelliteReports),
            consumersRunOn: consumerExecutor)
        let shutdown: StreamShutdown
        do {
            shutdown = try StreamShutdown.start(finishing: session)
        } catch {
            printError("cannot watch for signals: \(error)")
            return .unavailable
        }
        // A monitor's events go to TOPIC/event, where OwnTracks puts transitions.
        let lineFormat: MonitorEventEncoder.Format = switch format {
        case .json: .json
        case .text: .text
        case .owntracks: .owntracks
        }
        let meter: DistanceMeter?, keeper: OdometerKeeper?
        switch DistanceWiring.start(options.distance, forSinks: needs.contains(.distance)) {
        case .off: (meter, keeper) = (nil, nil)
        case .measuring(let started, let kept): (meter, keeper) = (started, kept)
        case .failed(let code): return code
        }
        defer { keeper?.finish() }
        // gpsd's events with their odometer and trips (`--trips`: TRIP lines among the events).
        var measured = GPSDBatchBuilder(meter: meter)
        var sinks: SinkFanOut
        var context = SinkStartContext(
            standardOutput: { MonitorEventEncoder(format: lineFormat, framed: false) },
            messages: { MonitorEventEncoder(format: lineFormat, framed: false) },
            trackFile: { _ in (MonitorEventEncoder(format: lineFormat, framed: true), Self.recordLayoutFormat) },
            // `--format json` as given (not the default for sinks): a UDP listener gets NMEA unless asked.
            formatGiven: fixFormat, environment: PublishOptions.processEnvironment,
            onFatal: { session.finish() })
        context.topicSuffix = "/event"
        context.ownTracks = format == .owntracks
        context.regions = true
        context.verbose = options.verbose
        switch await SinkPipeline.start(options.sinks, context: context) {
        case .ready(let started): sinks = started
        case .failed(let code): return code
        }
        var delivery = EventDelivery()
        var ownTracks = format == .owntracks
            ? await OwnTracksTransitions(
                monitor: monitor, trackerID: OwnTracksEncoder.trackerID(given: options.trackerID))
            : nil
        var failure: (any Error)?
        let inputs = MonitorInputs(session: session)
        do {
            // What the last run saved and could not see delivered goes first.
            var open = await deliver(await monitor.undelivered(), to: &sinks, &delivery, ownTracks: &ownTracks)
            open = await sinks.send(.regions(await Self.regions(of: monitor))) && open
            await monitor.confirmDelivery(through: delivery.settledSequence(sinks.settledEvents))
            loop: for await input in inputs.inputs where open {
                let deliveries: [GeofenceDelivery]
                switch input {
                case .batch(let batch):
                    for case .status(let status) in batch { reporter.report(status) }
                    // gpsd's events go to the sinks too (Home Assistant shows the tracker from them).
                    for event in batch { measured.append(event) }
                    open = await sinks.send(.gpsd(measured.take())) && open
                    ownTracks?.consider(batch)
                    deliveries = try await monitor.decide(batch)
                    inputs.took()
                case .tick:
                    inputs.tookTick()
                    deliveries = try await monitor.decide(EmptyCollection())
                case .failed(let error):
                    failure = error
                    break loop
                }
                open = await deliver(deliveries, to: &sinks, &delivery, ownTracks: &ownTracks) && open
                open = await sinks.send(.regions(await Self.regions(of: monitor))) && open
                // Saved at once (a journal line; only when an event was confirmed, so rarely),
                // so that a crash repeats only what had not arrived everywhere yet.
                await monitor.confirmDelivery(through: delivery.settledSequence(sinks.settledEvents))
                try await monitor.saveConfirmations()
            }
        } catch {
            failure = error
        }
        measured.finishMeasuring()
        session.finish()
        await inputs.stop()
        let outcomes = await shutdown.finish(sinks)
        // What the sinks finished writing (a closed stdout or a failed sink settles less).
        await monitor.confirmDelivery(through: delivery.settledSequence(sinks.settledEvents))
        do {
            try await monitor.saveConfirmations()
        } catch {
            failure = failure ?? error
        }
        return shutdown.exitCode(outcomes: outcomes, failure: failure)
    }

    /// Hands the sinks `deliveries`' events, noting which event count each sequence needs.
    private func deliver(
        _ deliveries: [GeofenceDelivery], to sinks: inout SinkFanOut, _ delivery: inout EventDelivery,
        ownTracks: inout OwnTracksTransitions?
    ) async -> Bool {
        guard !deliveries.isEmpty else { return true }
        var items: [MonitorEventItem] = []
        for given in deliveries {
            items.append(MonitorEventItem(event: given.event, ownTracks: await ownTracks?.context(for: given.event)))
        }
        let open = await sinks.send(.monitor(items))
        delivery.sent(deliveries.map(\.sequence), eventsThrough: sinks.eventsGiven)
        return open
    }

    /// The monitor's regions and whether the tracker is inside each (Home Assistant's presence).
    private static func regions(of monitor: GeofenceMonitor) async -> [String: RegionPresence] {
        var regions: [String: RegionPresence] = [:]
        for record in await monitor.records {
            regions[record.identifier] = RegionPresence(name: record.displayName, inside: record.state == .satisfied)
        }
        return regions
    }
}

/// Which of a monitor's events every sink has for good: the monitor's at-least-once
/// confirmation. Each event handed to the sinks is noted with the fan-out's event count
/// once it was given; the newest whose count every sink has settled is confirmed.
struct EventDelivery {
    /// Each event sent, with the number of events every sink had been given once it was.
    private var sent: [(sequence: Int, eventsThrough: Int)] = []
    /// The newest event every sink has for good.
    private(set) var confirmed = 0

    /// Notes `sequences`, handed over in one batch that took the count to `eventsThrough`.
    mutating func sent(_ sequences: [Int], eventsThrough: Int) {
        for sequence in sequences { sent.append((sequence, eventsThrough)) }
    }

    /// Moves past every event whose batch all sinks have settled (`settledEvents`, the
    /// fan-out's minimum), and gives the newest confirmed.
    mutating func settledSequence(_ settledEvents: Int) -> Int {
        var settled = 0
        while settled < sent.count, sent[settled].eventsThrough <= settledEvents { settled += 1 }
        if settled > 0 {
            confirmed = sent[settled - 1].sequence
            sent.removeFirst(settled)
        }
        return confirmed
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

    /// What `event`'s transition line needs.
    mutating func context(for event: GeofenceEvent) async -> OwnTracksTransitionContext {
        // A removed region's leave keeps what its enter had: the record under its id may
        // already be the region that replaced it, with another title, and Home Assistant
        // leaves only a region of the enter's `desc`.
        if event.state != .unmonitored || !noted.contains(event.identifier) {
            note(await monitor.record(for: event.identifier), for: event.identifier)
        }
        return OwnTracksTransitionContext(
            regionAdded: added[event.identifier] ?? 0, title: titles[event.identifier],
            lastFix: lastFixWithAccuracy ?? lastFix, trackerID: trackerID)
    }

    /// `event`'s transition line, if it has one.
    mutating func line(for event: GeofenceEvent) async -> String? {
        GeofenceEventLine.ownTracks(event, context: await context(for: event))
    }

    private mutating func note(_ record: GeofenceRecord?, for identifier: String) {
        guard let record else { return }
        added[identifier] = record.added?.seconds
        titles[identifier] = record.title
        noted.insert(identifier)
    }
}
