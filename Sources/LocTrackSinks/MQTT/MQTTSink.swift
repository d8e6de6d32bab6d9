package import LocTrackMQTT
import LocTrackFormats
import Synchronization

/// `--publish`: each record a streaming command would print becomes one MQTT message on
/// one topic, through the spool and the ``Publisher``; nothing goes to stdout. Its encoder
/// makes each message on its own: a message is never a line cut out of a joined buffer.
package final class MQTTSink: Sink {
    private let broker: BrokerConnection
    private let topic: String
    /// The format (JSON or OwnTracks, with `stream`'s `--max-error`); the fan-out calls one
    /// sink at a time, so this lock is never contended, and nothing is spooled under it.
    private let encoder: Mutex<any SinkEncoder>
    /// Events whose messages are in the spool (synced before `publish` returns).
    private let spooledEvents = Atomic(0)

    /// Opens the spool and starts publishing.
    /// - Parameters:
    ///   - topic: where the messages go (`stream`: the URL's; `monitor run`: its `/event`).
    ///   - will: the OwnTracks last will, for `--format owntracks`.
    ///   - onFatal: called once when publishing cannot go on (the command then finishes).
    package init(
        options: PublishOptions, topic: String, encoder: sending any SinkEncoder, will: PublisherConfiguration.Will?,
        verbose: Bool, environment: [String: String] = PublishOptions.processEnvironment,
        onFatal: @escaping @Sendable () -> Void
    ) throws(PublishingSetupError) {
        broker = try BrokerConnection(
            options: options, will: will, verbose: verbose, environment: environment, onFatal: onFatal)
        self.topic = topic
        self.encoder = Mutex(encoder)
    }

    package func take(_ batch: SinkBatch) -> Bool {
        let messages = encoder.withLock { $0.messages(batch) }
        guard messages.isEmpty || broker.publish(messages, to: topic) else { return false }
        spooledEvents.add(batch.eventCount, ordering: .relaxed)
        return true
    }

    package var settledEvents: Int { spooledEvents.load(ordering: .relaxed) }

    package func finish(promptly: Bool) async -> SinkOutcome {
        await broker.finish(promptly: promptly)
    }
}
