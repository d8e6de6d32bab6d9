import LocTrack
import LocTrackMQTT

/// `loctrack stream`: every accepted fix until a signal, `--count`, `--duration`, a closed pipe or gpsd's end.
struct StreamCommand {
    let options: Command.StreamOptions
    let output: StandardOutput
    /// The executor this command's task runs on, given to its gpsd session (``CLI/runBlocking(_:)``).
    let consumerExecutor: ConsumerExecutor?

    /// One sink and the encoder that makes its lines.
    private struct Destination {
        let sink: any LineSink
        var encoder: any FixEncoder
        /// A broker's ``Command/StreamOptions/brokerAccuracyLimit``: a fix with a larger
        /// `eph`, or none, is not sent to it.
        var accuracyLimit: Double?
        var pending = PendingLines()

        mutating func add(_ fix: Fix) {
            guard fix.meets(minimumAccuracy: accuracyLimit) else { return }
            encoder.encode(fix, into: &pending.text)
            pending.lines += 1
        }
    }

    func run() async -> ExitCode {
        var filter = FixFilter(
            minimumAccuracy: options.minimumAccuracy, minimumDistance: options.minimumDistance,
            intervalSeconds: options.intervalSeconds)
        let reporter = StatusReporter(verbose: options.verbose)
        // Home Assistant shows satellites and DOPs: only then does the reader parse SKY.
        let session = GPSDSession(
            source: options.source, reconnectPolicy: options.reconnect ? .automatic : .never,
            reportsSatellites: options.publishes.contains { $0.homeAssistant != nil }, consumersRunOn: consumerExecutor)
        let shutdown: StreamShutdown
        do {
            shutdown = try StreamShutdown.start(
                finishing: session, after: options.durationSeconds.map { .milliseconds(Int64($0 * 1000)) })
        } catch {
            printError("cannot watch for signals: \(error)")
            return .unavailable
        }
        let sinks: SinkSet
        switch await SinkFactory.start(
            publishes: options.publishes, records: options.records, recordFormat: trackFileFormat,
            topic: \.broker.topic, ownTracks: options.format == .owntracks, verbose: options.verbose, output: output,
            session: session)
        {
        case .ready(let started): sinks = started
        case .failed(let code): return code
        }
        var destinations = sinks.lineMembers.map { member in
            Destination(sink: member.sink, encoder: encoder(for: member.role), accuracyLimit: accuracyLimit(for: member.role))
        }
        let homeAssistants = sinks.homeAssistants
        var forHomeAssistant: [GPSDEvent] = []
        for index in destinations.indices { destinations[index].sink.sendFraming(destinations[index].encoder.begin()) }
        var delivered = 0
        var failure: LocTrackError?
        var events = session.events().makeAsyncIterator()
        do {
            reading: while let batch = try await events.nextBatch() {
                // One chunk per sink per batch; a status first sends what came before it.
                var done = false
                for event in batch {
                    switch event {
                    case .status(let status):
                        if status.breaksTrack {
                            for index in destinations.indices { destinations[index].encoder.breakTrack() }
                        }
                        guard await send(&destinations) else { break reading }
                        reporter.report(status)
                        if !homeAssistants.isEmpty { forHomeAssistant.append(event) }
                    case .sky:
                        if !homeAssistants.isEmpty { forHomeAssistant.append(event) }
                    case .fix(let fix):
                        guard filter.accept(fix) else { continue }
                        for index in destinations.indices { destinations[index].add(fix) }
                        if !homeAssistants.isEmpty { forHomeAssistant.append(event) }
                        delivered += 1
                        done = options.count.map { delivered >= $0 } ?? false
                    }
                    if done { break }
                }
                guard await send(&destinations), take(&forHomeAssistant, homeAssistants), !done else { break }
            }
        } catch {
            failure = error
        }
        session.finish()
        for index in destinations.indices { destinations[index].sink.sendFraming(destinations[index].encoder.end()) }
        return await shutdown.exitCode(sinks: sinks, failure: failure)
    }

    /// Sends each destination what it gathered. Every sink gets its chunk even when one
    /// refuses (the others keep what the command accepted).
    /// - Returns: false once a sink takes nothing more: the command then ends.
    private func send(_ destinations: inout [Destination]) async -> Bool {
        var open = true
        for index in destinations.indices {
            let sink = destinations[index].sink
            if await !destinations[index].pending.send(to: sink) { open = false }
        }
        return open
    }

    /// Hands the Home Assistant brokers a batch's events.
    /// - Returns: false once one takes nothing more.
    private func take(_ events: inout [GPSDEvent], _ sinks: [HomeAssistantSink]) -> Bool {
        guard !events.isEmpty else { return true }
        defer { events.removeAll(keepingCapacity: true) }
        var open = true
        for sink in sinks where !sink.take(events) { open = false }
        return open
    }

    /// The encoder for one sink: stdout's format is `--format` or by the terminal; a
    /// broker's is `--format` or JSON (no terminal reads it); a track file's follows its
    /// name (``trackFileFormat(_:)``) and is framed for the track writer.
    private func encoder(for role: SinkSet.Role) -> any FixEncoder {
        switch role {
        case .standardOutput:
            (options.format ?? .default(stdoutIsTerminal: output.isTerminal)).makeEncoder(trackerID: options.trackerID)
        case .broker, .homeAssistant:
            (options.format ?? .json).makeEncoder(trackerID: options.trackerID)
        case .trackFile(let record):
            RecordFrameEncoder(format: trackFileFormat(record), trackerID: options.trackerID)
        }
    }

    /// The accuracy limit of one sink: brokers only (``Command/StreamOptions/brokerAccuracyLimit``).
    private func accuracyLimit(for role: SinkSet.Role) -> Double? {
        if case .broker = role { options.brokerAccuracyLimit } else { nil }
    }

    /// A track file's format: the one its name's extension names (`tracks/%F.gpx`), else
    /// `--format`, else JSON lines.
    private func trackFileFormat(_ record: RecordOptions) -> OutputFormat {
        OutputFormat(fileName: record.path.text, otherwise: options.format)
    }
}

extension GPSDStatus {
    /// Whether fixes after this are not one continuous track with those before.
    var breaksTrack: Bool {
        switch self {
        case .waiting, .deviceLost, .noFixes, .fixLost: true
        default: false
        }
    }
}
