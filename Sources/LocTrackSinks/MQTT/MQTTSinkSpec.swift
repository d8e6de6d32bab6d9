package import LocTrackMQTT
package import LocTrackFormats
import LocTrackSystem

/// `--publish mqtt://…` (or `mqtts://`) without `--ha-discovery`: each record one message on
/// the URL's topic, through the spool and the publisher's thread.
package struct MQTTSinkSpec: BrokerSinkSpec {
    package let options: PublishOptions

    package init(_ options: PublishOptions) {
        self.options = options
    }

    /// The spec of one `--publish` to a broker: Home Assistant's with `--ha-discovery`.
    package static func spec(for options: PublishOptions) -> AnySinkSpec {
        if let homeAssistant = options.homeAssistant {
            return AnySinkSpec(HomeAssistantSinkSpec(options, homeAssistant: homeAssistant))
        }
        return AnySinkSpec(MQTTSinkSpec(options))
    }

    package func needs(writing format: OutputFormat?) -> SinkNeeds { [.spool, .thread] }

    package func start(_ context: SinkStartContext) throws(SinkStartError) -> any Sink {
        do throws(PublishingSetupError) {
            return try MQTTSink(
                options: options, topic: options.broker.topic + context.topicSuffix, encoder: context.messages(),
                will: context.ownTracks ? Self.lastWill(on: options.broker.topic) : nil, verbose: context.verbose,
                environment: context.environment, onFatal: context.onFatal)
        } catch {
            throw SinkStartError(error.description, exitCode: error.exitCode)
        }
    }

    /// OwnTracks' last will: the broker publishes it on the device's topic when the
    /// tracker vanishes; `tst` is when the tracker connected (the apps do the same).
    package static func lastWill(on topic: String) -> PublisherConfiguration.Will {
        .init(topic: topic, payload: Array("{\"_type\":\"lwt\",\"tst\":\(wallClockSeconds())}".utf8))
    }
}

/// What the specs of a `--publish` to a broker share (plain MQTT's and Home Assistant's):
/// the broker's options, and so its spool (`--spool`, else the client id's folder).
package protocol BrokerSinkSpec: SinkSpec {
    var options: PublishOptions { get }
}

extension BrokerSinkSpec {
    package var spoolFolderGiven: String? { options.spoolDirectory }

    package func spoolFolder(environment: [String: String]) -> String? {
        try? options.spoolDirectory(environment: environment)
    }
}
