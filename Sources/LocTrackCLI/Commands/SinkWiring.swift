import LocTrack
import LocTrackFormats
import LocTrackProcess
import LocTrackMQTT
import LocTrackSinks
import LocTrackSystem

/// Starts the sinks a streaming command's options ask for, each with its encoder: stdout
/// when none is given, else one sink per `--publish` (``MQTTSink``, or ``HomeAssistantSink``
/// with `--ha-discovery`) and one ``TrackFileSink`` per `--output`. The one place that picks
/// sinks, for `stream` and `monitor run` alike; the ``SinkFanOut`` then treats them alike.
enum SinkWiring {
    /// The sinks, or the exit code of one that could not start (its one line is on stderr;
    /// the ones started before it have been finished, so nothing is left half done).
    enum Started {
        case ready(SinkFanOut)
        case failed(ExitCode)
    }

    /// What each kind of sink writes; the command decides.
    struct Encoders {
        /// stdout's format.
        var standardOutput: () -> any SinkEncoder
        /// A broker's, for `--publish` without `--ha-discovery`.
        var broker: (PublishOptions) -> any SinkEncoder
        /// A track file's frames, and the files' format.
        var trackFile: (RecordOptions) -> (encoder: any SinkEncoder, format: OutputFormat)
    }

    /// - Parameters:
    ///   - topic: the topic a broker's messages go to (`stream`: the URL's; `monitor run`: its `/event`).
    ///   - ownTracks: whether the messages are OwnTracks messages: then each broker gets an
    ///     OwnTracks last will (`{"_type":"lwt","tst":…}`) on the URL's topic.
    ///   - regions: `monitor run`: a Home Assistant broker also gets the monitor's regions.
    ///   - environment: where the spool folders and passwords are looked up.
    static func start(
        publishes: [PublishOptions], traccars: [TraccarOptions] = [], records: [RecordOptions], encoders: Encoders,
        topic: (PublishOptions) -> String, ownTracks: Bool, regions: Bool = false, verbose: Bool,
        session: GPSDSession, environment: [String: String] = PublishOptions.processEnvironment
    ) async -> Started {
        let onFatal: @Sendable () -> Void = { session.finish() }
        if publishes.isEmpty && traccars.isEmpty && records.isEmpty {
            return .ready(SinkFanOut([StandardOutputSink(encoder: encoders.standardOutput(), onClosed: onFatal)]))
        }
        if let folder = sharedSpool(publishes, environment: environment) {
            printError(UsageError.sharedSpool(folder).description)
            return .failed(.usage)
        }
        if let folder = sharedTraccarSpool(traccars, environment: environment) {
            printError(UsageError.sharedSpool(folder).description)
            return .failed(.usage)
        }
        let alone = publishes.count + traccars.count + records.count == 1
        var sinks: [any Sink] = []
        // Brokers first: a batch is in the spool (synced) before a track writer has it, so a
        // SIGKILL between the two can leave a fix at the broker that no file has, never one
        // in a file that the broker never gets.
        for publish in publishes {
            do throws(PublishingSetupError) {
                if let homeAssistant = publish.homeAssistant {
                    sinks.append(try HomeAssistantSink(
                        options: publish, homeAssistant: homeAssistant, withRegions: regions, verbose: verbose,
                        environment: environment, onFatal: onFatal))
                } else {
                    sinks.append(try MQTTSink(
                        options: publish, topic: topic(publish), encoder: encoders.broker(publish),
                        will: ownTracks ? lastWill(on: publish.broker.topic) : nil, verbose: verbose,
                        environment: environment, onFatal: onFatal))
                }
            } catch {
                printError(error.description)
                return await abandon(sinks, code: error.exitCode)
            }
        }
        // Traccar servers beside the brokers: each position is in its spool (synced) before a
        // track writer has the batch.
        for traccar in traccars {
            do throws(TraccarSinkError) {
                sinks.append(try TraccarSink(options: traccar, environment: environment, onFatal: onFatal))
            } catch {
                printError(error.description)
                // No libcurl (Debian's libcurl4) is a missing service, like gpsd (69); a spool that
                // cannot be opened, an output failure (74), as for a broker.
                return await abandon(sinks, code: error.missesLibcurl ? .unavailable : .outputFailed)
            }
        }
        for record in records {
            let (encoder, format) = encoders.trackFile(record)
            do throws(Errno) {
                sinks.append(try TrackFileSink(encoder: encoder, format: format, options: record, alone: alone, onClosed: onFatal))
            } catch {
                printError("cannot start the track writer: \(error)")
                return await abandon(sinks, code: .outputFailed)
            }
        }
        return .ready(SinkFanOut(sinks))
    }

    /// Finishes the sinks started before one failed to start.
    private static func abandon(_ sinks: [any Sink], code: ExitCode) async -> Started {
        _ = await SinkFanOut(sinks).finish(promptly: true)
        return .failed(code)
    }

    /// The folder two `--publish` share (as the environment resolves them), if any.
    static func sharedSpool(_ publishes: [PublishOptions], environment: [String: String]) -> String? {
        var seen: Set<String> = []
        for publish in publishes {
            guard let folder = try? publish.spoolDirectory(environment: environment) else { continue }
            if !seen.insert(folder).inserted { return folder }
        }
        return nil
    }

    /// The folder two Traccar `--publish` share (as the environment resolves them), if any.
    static func sharedTraccarSpool(_ traccars: [TraccarOptions], environment: [String: String]) -> String? {
        var seen: Set<String> = []
        for traccar in traccars {
            guard let folder = traccar.spoolDirectory(environment: environment) else { continue }
            if !seen.insert(folder).inserted { return folder }
        }
        return nil
    }

    /// OwnTracks' last will: the broker publishes it on the device's topic when the
    /// tracker vanishes; `tst` is when the tracker connected (the apps do the same).
    static func lastWill(on topic: String) -> PublisherConfiguration.Will {
        .init(topic: topic, payload: Array("{\"_type\":\"lwt\",\"tst\":\(wallClockSeconds())}".utf8))
    }
}
