import Glibc
import LocTrack
import LocTrackMQTT

/// Where a streaming command sends its lines: stdout, with `--publish` the broker, with
/// `--output` the track writer.
enum SinkChoice {
    case ready(any LineSink)
    /// `--publish` could not start; its one line is on stderr.
    case failed(ExitCode)

    /// - Parameters:
    ///   - topic: the topic the lines go to (`stream`: the URL's; `monitor run`: its `/event`).
    ///   - ownTracks: whether the lines are OwnTracks messages: then the broker gets an
    ///     OwnTracks last will (`{"_type":"lwt","tst":…}`) on the URL's topic.
    static func make(
        publish: PublishOptions?, topic: (PublishOptions) -> String, ownTracks: Bool, verbose: Bool,
        record: (options: RecordOptions, format: OutputFormat)? = nil, output: StandardOutput, session: GPSDSession
    ) -> SinkChoice {
        if let record {
            do throws(Errno) {
                return .ready(try RecordingSink(format: record.format, options: record.options) { session.finish() })
            } catch {
                printError("cannot start the track writer: \(error)")
                return .failed(.outputFailed)
            }
        }
        guard let publish else {
            return .ready(OutputWriter(descriptor: output.descriptor) { session.finish() })
        }
        let will = ownTracks ? lastWill(on: publish.broker.topic) : nil
        do throws(PublishingSetupError) {
            return .ready(try PublishingSink(
                options: publish, topic: topic(publish), will: will, verbose: verbose) { session.finish() })
        } catch {
            printError(error.description)
            return .failed(error.exitCode)
        }
    }

    /// OwnTracks' last will: the broker publishes it on the device's topic when the
    /// tracker vanishes; `tst` is when the tracker connected (the apps do the same).
    static func lastWill(on topic: String) -> PublisherConfiguration.Will {
        .init(topic: topic, payload: Array("{\"_type\":\"lwt\",\"tst\":\(time(nil))}".utf8))
    }
}
