import LocTrack
package import LocTrackMQTT
import LocTrackFormats
import Synchronization
import LocTrackSystem

/// `--publish URL --ha-discovery`: the broker gets Home Assistant's discovery
/// configurations and states (``HomeAssistantUpdates`` decides which and when), not
/// lines. Everything goes through the spool, so a broker outage loses no update, and
/// every message is retained.
///
/// Availability: the publisher greets every connection with a retained `online` and
/// leaves the broker a retained `offline` as its last will, so a SIGKILL or a pulled plug
/// shows as "unavailable"; a clean end publishes `offline` itself.
///
/// The sink has a thread of its own, `loctrack-ha`, and its own clock: the thread alone
/// decides (``HomeAssistantUpdates`` is its alone, without a lock) and spools, in the order
/// the inputs came, so a retained state never goes back to an older value. The command's
/// batches and the publisher's messages (Home Assistant's `online` on `PREFIX/status`) only
/// put inputs in its inbox and wake it: nothing of Home Assistant runs on the command's
/// task or on the publisher's thread, and no lock is held while it spools. Between inputs
/// the thread sleeps until what the interval held back is due (``HomeAssistantUpdates/nextDue(now:)``),
/// or, with nothing held back, until the next input.
///
/// The thread is the sink's: ``finish(promptly:)`` joins it once it has spooled its last
/// messages, and a sink released without finishing tells it to stop and joins it.
package final class HomeAssistantSink: Sink {
    private let broker: BrokerConnection
    private let inbox: Inbox
    private let thread = Mutex<JoinableThread?>(nil)

    /// What the thread has to do, handed over under a short lock.
    private final class Inbox: Sendable {
        enum Input {
            case batch(SinkBatch, at: Int64)
            case received(ReceivedMessage)
            /// The command ends: send what is held back and `offline`, then stop.
            case finish
            /// The sink is gone without finishing: stop at once.
            case stop
        }

        struct State {
            var inputs: [Input] = []
            /// Events whose decisions are spooled (or not for Home Assistant).
            var settledEvents = 0
            var ended = false
            var endWaiter: CheckedContinuation<Void, Never>?
        }

        let state = Mutex(State())
        let wakeUps: WakeUpPipe

        init() throws(Errno) {
            wakeUps = try WakeUpPipe()
        }

        func put(_ input: Input) {
            state.withLock { $0.inputs.append(input) }
            wakeUps.wake()
        }
    }

    /// Opens the spool, starts publishing and the sink's thread, and announces the device.
    package init(
        options: PublishOptions, homeAssistant: HomeAssistantOptions, withRegions: Bool, verbose: Bool,
        environment: [String: String] = PublishOptions.processEnvironment, onFatal: @escaping @Sendable () -> Void
    ) throws(PublishingSetupError) {
        let device = HomeAssistantDevice(
            options: homeAssistant, clientID: options.clientID, base: options.broker.topic, hostName: HostName.current())
        let inbox: Inbox
        do {
            inbox = try Inbox()
        } catch {
            throw .publisher(.thread(error.code))
        }
        self.inbox = inbox
        broker = try BrokerConnection(
            options: options, will: nil, verbose: verbose, environment: environment,
            adjust: { configuration in
                configuration.will = .init(topic: device.availabilityTopic, payload: Array("offline".utf8), retain: true)
                configuration.greetings = [.init(topic: device.availabilityTopic, payload: Array("online".utf8), retain: true)]
                configuration.subscriptions = [
                    device.homeAssistantStatusTopic, device.configTopic("binary_sensor", "+"),
                ]
            },
            hooks: PublisherHooks(onMessage: { message in inbox.put(.received(message)) }),
            onFatal: onFatal)
        let updates = HomeAssistantUpdates(
            device: device, intervalSeconds: homeAssistant.intervalSeconds, maximumError: homeAssistant.maximumError,
            withRegions: withRegions)
        let broker = self.broker
        var started: JoinableThread?
        do throws(Errno) {
            started = try JoinableThread(named: "loctrack-ha") {
                var loop = HomeAssistantLoop(updates: updates, broker: broker, inbox: inbox)
                loop.run()
            }
        } catch {
            throw .publisher(.thread(error.code))
        }
        thread.withLock { $0 = started.take() }
    }

    /// A sink released without ``finish(promptly:)``: its thread stops and is joined.
    deinit {
        inbox.put(.stop)
        if let running = thread.withLock({ $0.take() }) { running.join() }
    }

    /// Hands the batch to the sink's thread (gpsd's events with their odometer readings,
    /// the monitor's regions; the monitor's event lines and the trips are not Home
    /// Assistant's). Never waits.
    package func take(_ batch: SinkBatch) -> Bool {
        inbox.put(.batch(batch, at: Monotonic.milliseconds))
        return true
    }

    package var settledEvents: Int { inbox.state.withLock { $0.settledEvents } }

    /// Sends what the interval held back and a retained `offline`, then drains as
    /// ``MQTTSink`` does.
    package func finish(promptly: Bool) async -> SinkOutcome {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ended = inbox.state.withLock { state in
                if !state.ended { state.endWaiter = continuation }
                return state.ended
            }
            if ended { continuation.resume() } else { inbox.put(.finish) }
        }
        // The thread has spooled its last messages and is returning.
        if let ended = thread.withLock({ $0.take() }) { ended.join() }
        return await broker.finish(promptly: promptly)
    }

    /// The sink's thread: decides, spools, sleeps until the next input or due time.
    private struct HomeAssistantLoop {
        var updates: HomeAssistantUpdates
        let broker: BrokerConnection
        let inbox: Inbox

        mutating func run() {
            spool(updates.announce(now: Monotonic.milliseconds, spooled: broker.pendingCount))
            while true {
                let inputs = inbox.state.withLock { state in
                    defer { state.inputs.removeAll(keepingCapacity: true) }
                    return state.inputs
                }
                for input in inputs {
                    switch input {
                    case .batch(let batch, let time):
                        spool(decide(batch, now: time))
                        inbox.state.withLock { $0.settledEvents += batch.eventCount }
                    case .received(let message):
                        spool(received(message))
                    case .finish:
                        let now = Monotonic.milliseconds
                        spool(updates.heldBack(now: now, spooled: broker.pendingCount)
                              + [HomeAssistantMessage(updates.device.availabilityTopic, "offline")])
                        let waiter = inbox.state.withLock { state in
                            state.ended = true
                            defer { state.endWaiter = nil }
                            return state.endWaiter
                        }
                        waiter?.resume()
                        return
                    case .stop:
                        return
                    }
                }
                let now = Monotonic.milliseconds
                if inputs.isEmpty { spool(updates.tick(now: now, spooled: broker.pendingCount)) }
                let wait = updates.nextDue(now: now).map { Int32(clamping: max(0, $0 - now)) } ?? -1
                // A failed poll (ENOMEM) goes round again: inputs and due times are looked at anew.
                if inputs.isEmpty || wait != 0 { _ = try? inbox.wakeUps.wait(milliseconds: wait) }
            }
        }

        private mutating func decide(_ batch: SinkBatch, now: Int64) -> [HomeAssistantMessage] {
            switch batch {
            case .gpsd(let batch):
                batch.events.indices.flatMap { index in
                    updates.take(
                        batch.events[index], odometer: batch.odometer(at: index), now: now, spooled: broker.pendingCount)
                }
            case .regions(let regions):
                updates.setRegions(regions)
            case .monitor:
                []
            }
        }

        /// Home Assistant started (`online` on its status topic): announce everything again.
        /// A region's configuration retained at the broker for a region this monitor no
        /// longer has (removed while loctrack was stopped): remove it.
        private mutating func received(_ message: ReceivedMessage) -> [HomeAssistantMessage] {
            let device = updates.device
            if message.topic == device.homeAssistantStatusTopic {
                return message.payload == Array("online".utf8)
                    ? updates.announce(now: Monotonic.milliseconds, spooled: broker.pendingCount) : []
            }
            guard !message.payload.isEmpty, let object = device.binarySensorObject(configTopic: message.topic),
                  updates.isStale(regionObject: object)
            else { return [] }
            return [HomeAssistantMessage(device.configTopic("binary_sensor", object), "")]
        }

        /// Spools, with no lock held. A failure is the broker connection's fatal status,
        /// which ends the command through its `onFatal`.
        private func spool(_ messages: [HomeAssistantMessage]) {
            if !messages.isEmpty { _ = broker.publish(messages) }
        }
    }
}
