import LocTrack
import LocTrackMQTT
import LocTrackSystem

/// Starts the sinks a streaming command's options ask for: stdout when none is given,
/// else one ``PublishingSink`` per `--publish` and one ``RecordingSink`` per `--output`.
/// The one place that picks sinks, for `stream` and `monitor run` alike.
enum SinkFactory {
    /// The sinks, or the exit code of one that could not start (its one line is on stderr;
    /// the ones started before it have been finished, so nothing is left half done).
    enum Started {
        case ready(SinkSet)
        case failed(ExitCode)
    }

    /// - Parameters:
    ///   - topic: the topic a broker's lines go to (`stream`: the URL's; `monitor run`: its `/event`).
    ///   - ownTracks: whether the lines are OwnTracks messages: then each broker gets an
    ///     OwnTracks last will (`{"_type":"lwt","tst":…}`) on the URL's topic.
    ///   - regions: `monitor run`: a Home Assistant broker also gets the monitor's regions.
    ///   - environment: where the spool folders and passwords are looked up.
    static func start(
        publishes: [PublishOptions], records: [RecordOptions], recordFormat: (RecordOptions) -> OutputFormat,
        topic: (PublishOptions) -> String, ownTracks: Bool, regions: Bool = false, verbose: Bool,
        output: StandardOutput, session: GPSDSession, environment: [String: String] = PublishOptions.processEnvironment
    ) async -> Started {
        if publishes.isEmpty && records.isEmpty {
            return .ready(SinkSet([.init(role: .standardOutput, sink: OutputWriter(descriptor: output.descriptor) { session.finish() })]))
        }
        if let clash = sharedSpool(publishes, environment: environment) {
            printError(clash.description)
            return .failed(.usage)
        }
        // Alone, a sink may make the command wait briefly for room (a pause of stdout loses
        // nothing); with others, no sink waits, so that none delays another.
        let alone = publishes.count + records.count == 1
        var members: [SinkSet.Member] = []
        // Brokers first: a batch is in the spool (synced) before a track writer has it, so a
        // SIGKILL between the two can leave a fix at the broker that no file has, never one
        // in a file that the broker never gets.
        for publish in publishes {
            if let homeAssistant = publish.homeAssistant {
                do throws(PublishingSetupError) {
                    let sink = try HomeAssistantSink(
                        options: publish, homeAssistant: homeAssistant, withRegions: regions, verbose: verbose,
                        environment: environment
                    ) { session.finish() }
                    members.append(.init(role: .homeAssistant(publish), sink: sink))
                } catch {
                    printError(error.description)
                    return await abandon(members, code: error.exitCode)
                }
                continue
            }
            let will = ownTracks ? lastWill(on: publish.broker.topic) : nil
            do throws(PublishingSetupError) {
                let sink = try PublishingSink(
                    options: publish, topic: topic(publish), will: will, verbose: verbose, environment: environment
                ) { session.finish() }
                members.append(.init(role: .broker(publish), sink: sink))
            } catch {
                printError(error.description)
                return await abandon(members, code: error.exitCode)
            }
        }
        for record in records {
            do throws(Errno) {
                let sink = try RecordingSink(format: recordFormat(record), options: record, waitsForRoom: alone) {
                    session.finish()
                }
                members.append(.init(role: .trackFile(record), sink: sink))
            } catch {
                printError("cannot start the track writer: \(error)")
                return await abandon(members, code: .outputFailed)
            }
        }
        return .ready(SinkSet(members))
    }

    /// Finishes the sinks started before one failed to start.
    private static func abandon(_ members: [SinkSet.Member], code: ExitCode) async -> Started {
        _ = await SinkSet(members).finish(promptly: true)
        return .failed(code)
    }

    /// Two `--publish` whose spool folders (as the environment resolves them) are one.
    static func sharedSpool(_ publishes: [PublishOptions], environment: [String: String]) -> UsageError? {
        var seen: Set<String> = []
        for publish in publishes {
            guard let folder = try? publish.spoolDirectory(environment: environment) else { continue }
            if !seen.insert(folder).inserted { return .sharedSpool(folder) }
        }
        return nil
    }

    /// OwnTracks' last will: the broker publishes it on the device's topic when the
    /// tracker vanishes; `tst` is when the tracker connected (the apps do the same).
    static func lastWill(on topic: String) -> PublisherConfiguration.Will {
        .init(topic: topic, payload: Array("{\"_type\":\"lwt\",\"tst\":\(wallClockSeconds())}".utf8))
    }
}
