import LocTrack
import LocTrackMQTT
import Synchronization
import LocTrackSystem

/// `--publish URL --ha-discovery`: the broker gets Home Assistant's discovery
/// configurations and states (``HomeAssistantUpdates`` decides which and when), not
/// lines. Everything goes through the same spool as ``PublishingSink``'s lines, so a
/// broker outage loses no update, and every message is retained.
///
/// Availability: the publisher greets every connection with a retained `online` and
/// leaves the broker a retained `offline` as its last will, so a SIGKILL or a pulled plug
/// shows as "unavailable"; a clean end publishes `offline` itself.
///
/// Two threads feed the updates: the command (gpsd's events, the monitor's regions) and
/// the publisher's (Home Assistant's `online` on `PREFIX/status`, each wake-up for what
/// the interval held back). Both spool under one lock, so messages reach the spool in the
/// order they were decided, and a retained state never goes back to an older value.
final class HomeAssistantSink: LineSink {
    private let lines: PublishingSink
    private let relay: Relay
    let device: HomeAssistantDevice

    init(
        options: PublishOptions, homeAssistant: HomeAssistantOptions, withRegions: Bool, verbose: Bool,
        environment: [String: String] = PublishOptions.processEnvironment, onFatal: @escaping @Sendable () -> Void
    ) throws(PublishingSetupError) {
        let device = HomeAssistantDevice(
            options: homeAssistant, clientID: options.clientID, base: options.broker.topic, hostName: HostName.current())
        self.device = device
        let relay = Relay(HomeAssistantUpdates(
            device: device, intervalSeconds: homeAssistant.intervalSeconds, maximumError: homeAssistant.maximumError,
            withRegions: withRegions))
        self.relay = relay
        let hooks = PublisherHooks(
            onMessage: { message in relay.received(message) },
            onWake: { now in relay.perform { updates, spooled in updates.tick(now: now, spooled: spooled) } })
        lines = try PublishingSink(
            options: options, topic: device.stateTopic, will: nil, verbose: verbose, environment: environment,
            adjust: { configuration in
                configuration.will = .init(topic: device.availabilityTopic, payload: Array("offline".utf8), retain: true)
                configuration.greetings = [.init(topic: device.availabilityTopic, payload: Array("online".utf8), retain: true)]
                configuration.subscriptions = [
                    device.homeAssistantStatusTopic, device.configTopic("binary_sensor", "+"),
                ]
            },
            hooks: hooks, onFatal: onFatal)
        relay.attach(lines)
        relay.perform { updates, spooled in updates.announce(now: Monotonic.milliseconds, spooled: spooled) }
    }

    /// gpsd's events of one batch (the fixes the filters accepted, statuses, SKY).
    func take(_ events: [GPSDEvent]) -> Bool {
        guard !events.isEmpty else { return true }
        let now = Monotonic.milliseconds
        return relay.perform { updates, spooled in
            events.flatMap { updates.take($0, now: now, spooled: spooled) }
        }
    }

    /// The monitor's regions now (`monitor run`).
    func setRegions(_ regions: [String: HomeAssistantUpdates.Region]) -> Bool {
        relay.perform { updates, _ in updates.setRegions(regions) }
    }

    // MARK: LineSink

    /// Takes no lines: a command gives this sink events instead.
    func send(_ output: OutputBytes, lines: Int) async -> Bool { true }

    func sendFraming(_ text: String) {}

    /// Every message is in the spool (synced) when ``take(_:)`` returns: nothing is ever
    /// waiting here, so this sink holds back no line a monitor confirms.
    var settledLines: Int { Int.max }

    /// Sends what the interval held back and a retained `offline`, then drains as
    /// ``PublishingSink`` does.
    func finish(promptly: Bool) async -> SinkOutcome {
        let device = self.device
        _ = relay.perform { updates, spooled in
            updates.heldBack(now: Monotonic.milliseconds, spooled: spooled)
                + [HomeAssistantMessage(device.availabilityTopic, "offline")]
        }
        return await lines.finish(promptly: promptly)
    }

    /// The updates, and the sink that spools what they decide; one lock for both.
    private final class Relay: Sendable {
        private struct Inner {
            var updates: HomeAssistantUpdates
            /// Weak: the publisher's thread holds the hooks that hold this relay.
            weak var sink: PublishingSink?
        }

        private let inner: Mutex<Inner>

        init(_ updates: HomeAssistantUpdates) {
            inner = Mutex(Inner(updates: updates))
        }

        func attach(_ sink: PublishingSink) {
            inner.withLock { $0.sink = sink }
        }

        /// Decides and spools under the lock (see the type's comment).
        /// - Returns: false once publishing cannot go on.
        @discardableResult
        func perform(_ decide: (inout HomeAssistantUpdates, _ spooled: Int) -> [HomeAssistantMessage]) -> Bool {
            inner.withLock { inner in
                guard let sink = inner.sink else { return true }
                return sink.send(decide(&inner.updates, sink.publisher.pendingCount))
            }
        }

        /// Home Assistant started (`online` on its status topic): announce everything again.
        /// A region's configuration retained at the broker for a region this monitor no
        /// longer has (removed while loctrack was stopped): remove it.
        func received(_ message: ReceivedMessage) {
            perform { updates, spooled in
                let device = updates.device
                if message.topic == device.homeAssistantStatusTopic {
                    return message.payload == Array("online".utf8) ? updates.announce(now: Monotonic.milliseconds, spooled: spooled) : []
                }
                guard !message.payload.isEmpty, let object = device.binarySensorObject(configTopic: message.topic),
                      updates.isStale(regionObject: object)
                else { return [] }
                return [HomeAssistantMessage(device.configTopic("binary_sensor", object), "")]
            }
        }
    }
}
