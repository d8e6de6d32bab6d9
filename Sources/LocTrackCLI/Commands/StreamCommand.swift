import LocTrackSystem
import LocTrack
import LocTrackDistance
import LocTrackFormats
import LocTrackProcess
import LocTrackMQTT
import LocTrackSinks

/// `loctrack stream`: every accepted fix until a signal, `--count`, `--duration`, a closed pipe or gpsd's end.
///
/// The wiring: a ``GPSDSession`` (the source), the command's filters (`--min-accuracy`,
/// `--min-distance`, `--interval`, `--count`), and a ``SinkFanOut`` over the sinks the
/// options ask for (``SinkPipeline``), each with its own encoder.
struct StreamCommand {
    let options: Command.StreamOptions
    let output: StandardOutput
    /// The executor this command's task runs on, given to its gpsd session (``CLI/runBlocking(_:)``).
    let consumerExecutor: ConsumerExecutor?

    func run() async -> ExitCode {
        var filter = FixFilter(
            minimumAccuracy: options.minimumAccuracy, minimumDistance: options.minimumDistance,
            intervalSeconds: options.intervalSeconds)
        let reporter = StatusReporter(verbose: options.verbose)
        // The reader parses SKY only for a sink that writes what SKY says (Home Assistant's
        // satellites and DOPs, NMEA's GGA).
        let needs = SinkPipeline.needs(of: options.sinks, writing: options.format)
        let session = GPSDSession(
            source: options.source, reconnectPolicy: options.reconnect ? .automatic : .never,
            reportsSatellites: needs.contains(.satelliteReports),
            consumersRunOn: consumerExecutor)
        let shutdown: StreamShutdown
        do {
            shutdown = try StreamShutdown.start(
                finishing: session, after: options.durationSeconds.map { .milliseconds(Int64($0 * 1000)) })
        } catch {
            printError("cannot watch for signals: \(error)")
            return .unavailable
        }
        let meter: DistanceMeter?, keeper: OdometerKeeper?
        switch DistanceWiring.start(options.distance, forSinks: needs.contains(.distance)) {
        case .off: (meter, keeper) = (nil, nil)
        case .measuring(let started, let kept): (meter, keeper) = (started, kept)
        case .failed(let code): return code
        }
        defer { keeper?.finish() }
        var sinks: SinkFanOut
        switch await SinkPipeline.start(options.sinks, context: sinkContext(finishing: session)) {
        case .ready(let started): sinks = started
        case .failed(let code): return code
        }
        var delivered = 0
        var failure: LocTrackError?
        // The events of one batch that go on: accepted fixes, statuses, SKY, with their
        // odometer and trips when the command measures distance. Kept between batches so
        // that its storage is reused.
        var accepted = GPSDBatchBuilder(meter: meter)
        var events = session.events().makeAsyncIterator()
        do {
            reading: while let batch = try await events.nextBatch() {
                // One chunk per sink per batch; a status is reported once what came before it is out.
                var done = false
                for event in batch {
                    switch event {
                    case .status(let status):
                        accepted.append(event)
                        guard await send(&accepted, to: &sinks) else { break reading }
                        reporter.report(status)
                        continue
                    case .sky:
                        accepted.append(event)
                    case .fix(let fix):
                        guard filter.accept(fix) else {
                            // The odometer counts what the filters leave out: distance travelled, not printed.
                            accepted.measure(fix)
                            continue
                        }
                        accepted.append(event)
                        delivered += 1
                        done = options.count.map { delivered >= $0 } ?? false
                    }
                    if done { break }
                }
                guard await send(&accepted, to: &sinks), !done else { break }
            }
        } catch {
            failure = error
        }
        accepted.finishMeasuring()
        session.finish()
        return await shutdown.exitCode(sinks: sinks, failure: failure)
    }

    /// Hands the sinks what was gathered (if anything) and starts afresh.
    /// - Returns: false once a sink takes nothing more.
    private func send(_ events: inout GPSDBatchBuilder, to sinks: inout SinkFanOut) async -> Bool {
        guard !events.isEmpty else { return true }
        return await sinks.send(.gpsd(events.take()))
    }

    /// What the sinks write: stdout `--format` or by the terminal; a broker `--format` or
    /// JSON (no terminal reads it), without fixes over `--max-error`; a track file the
    /// format its name's extension names (``trackFileFormat(_:otherwise:)``), framed for the
    /// track writer. A sink that can go on no longer ends the session.
    private func sinkContext(finishing session: GPSDSession) -> SinkStartContext {
        let options = self.options
        let stdoutIsTerminal = output.isTerminal
        var context = SinkStartContext(
            standardOutput: {
                FixRecordEncoder(
                    (options.format ?? .default(stdoutIsTerminal: stdoutIsTerminal)).makeEncoder(trackerID: options.trackerID),
                    writesOdometer: options.distance.odometerOnLines)
            },
            messages: {
                FixRecordEncoder(
                    (options.format ?? .json).makeEncoder(trackerID: options.trackerID),
                    accuracyLimit: options.brokerAccuracyLimit, writesOdometer: options.distance.odometerOnLines)
            },
            trackFile: { record in
                let format = Self.trackFileFormat(record, otherwise: options.format)
                return (FixRecordEncoder(RecordFrameEncoder(format: format, trackerID: options.trackerID)), format)
            },
            formatGiven: options.format, environment: PublishOptions.processEnvironment, onFatal: { session.finish() })
        context.ownTracks = options.format == .owntracks
        context.verbose = options.verbose
        return context
    }

    /// A track file's format: the one its name's extension names (`tracks/%F.gpx`), else
    /// `--format`, else JSON lines.
    private static func trackFileFormat(_ record: RecordOptions, otherwise format: OutputFormat?) -> OutputFormat {
        OutputFormat(fileName: record.path.text, otherwise: format)
    }
}
