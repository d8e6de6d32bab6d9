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
/// The inbox holds at most ``inboxCapacity`` inputs (a batch each: about 100 s of a 10 Hz
/// receiver; it fills only when spooling stalls, a disk that stopped taking writes). When
/// full, the **oldest** input is dropped for the new one, never the caller made to wait
/// (``Sink/take(_:)``): what Home Assistant shows is state (the position, the sensors, the
/// regions' snapshot), which the newest input, always kept, carries whole; only
/// intermediate states are lost, which the interval would mostly have held back anyway.
/// A dropped batch's events count as settled (in order: once the thread has handled what
/// came before them), and once the thread catches up one line on stderr says how many
/// inputs were dropped.
///
/// The thread is the sink's: ``finish(promptly:)`` joins it once it has spooled its last
/// messages, and a sink released without finishing tells it to stop and joins it.
package final class HomeAssistantSink: Sink {
    /// Inputs the thread's inbox holds at most.
    package static let inboxCapacity = 1024

    /// What the thread has to do, in the order it came.
    private enum Input: Sendable {
        case batch(SinkBatch, at: Int64)
        case received(ReceivedMessage)
    }

    /// What the program and the thread share besides the inbox.
    private final class Progress: Sendable {
        struct State {
            /// Events whose decisions are spooled (or not for Home Assistant, or dropped).
            var settledEvents = 0
            /// Events of batches the full inbox dropped, not counted as settled yet: the
            /// thread counts them once it has handled what it took before them, so that the
            /// count never runs ahead of an older batch still being decided.
            var droppedEvents = 0
            /// The thread spooled its last messages (``finish(promptly:)``).
            var ended = false
            var endWaiter: CheckedContinuation<Void, Never>?
        }

        let state = Mutex(State())
    }

    private let broker: BrokerConnection
    private let inbox: BoundedInbox<Input>
    private let progress = Progress()
    private let thread = ThreadOwner()

    /// Opens the spool, starts publishing and the sink's thread, and announces the device.
    package init(
        options: PublishOptions, homeAssistant: HomeAssistantOptions, withRegions: Bool, verbose: Bool,
        environment: [String: String] = PublishOptions.processEnvironment, onFatal: @escaping @Sendable () -> Void
    ) throws(PublishingSetupError) {
        let device = HomeAssistantDevice(
            options: homeAssistant, clientID: options.clientID, base: options.broker.topic, hostName: HostName.current())
        let inbox: BoundedInbox<Input>
        do {
            inbox = try BoundedInbox(capacity: Self.inboxCapacity)
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
        let progress = self.progress
        do throws(Errno) {
            try thread.start(named: "loctrack-ha") {
                var loop = HomeAssistantLoop(updates: updates, broker: broker, inbox: inbox, progress: progress)
                loop.run()
            }
        } catch {
            throw .publisher(.thread(error.code))
        }
    }

    /// A sink released without ``finish(promptly:)``: its thread stops at once (what waits
    /// in the inbox is not spooled), and is joined as the owner goes, after this.
    deinit {
        inbox.close(discardingQueued: true)
    }

    /// Hands the batch to the sink's thread (gpsd's events with their odometer readings,
    /// the monitor's regions; the monitor's event lines and the trips are not Home
    /// Assistant's). Never waits.
    package func take(_ batch: SinkBatch) -> Bool {
        if case .droppedOldest(.batch(let dropped, _)) = inbox.put(.batch(batch, at: Monotonic.milliseconds)) {
            progress.state.withLock { $0.droppedEvents += dropped.eventCount }
        }
        return true
    }

    package var settledEvents: Int { progress.state.withLock { $0.settledEvents } }

    /// Sends what the interval held back and a retained `offline`, then drains as
    /// ``MQTTSink`` does.
    package func finish(promptly: Bool) async -> SinkOutcome {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ended = progress.state.withLock { progress in
                if !progress.ended { progress.endWaiter = continuation }
                return progress.ended
            }
            if ended { continuation.resume() } else { inbox.close() }
        }
        // The thread has spooled its last messages and is returning.
        thread.join()
        return await broker.finish(promptly: promptly)
    }

    /// The sink's thread: decides, spools, sleeps until the next input or due time.
    private struct HomeAssistantLoop {
        var updates: HomeAssistantUpdates
        let broker: BrokerConnection
        let inbox: BoundedInbox<Input>
        let progress: Progress

        mutating func run() {
            spool(updates.announce(now: Monotonic.milliseconds, spooled: broker.pendingCount))
            while true {
                // Everything queued is handled before the thread sleeps: a close (or an input)
                // whose wake-up an earlier sleep drained is found by the next take.
                switch inbox.take() {
                case .handle(let inputs, let dropped):
                    if dropped > 0 { reportDropped(dropped) }
                    for input in inputs { handle(input) }
                    settleDropped()
                    continue
                case .finished:
                    finish()
                    return
                case .sleep:
                    settleDropped()
                }
                let now = Monotonic.milliseconds
                spool(updates.tick(now: now, spooled: broker.pendingCount))
                let wait = updates.nextDue(now: now).map { Int32(clamping: max(0, $0 - now)) } ?? -1
                if wait != 0 { inbox.wait(milliseconds: wait) }
            }
        }

        private mutating func handle(_ input: Input) {
            switch input {
            case .batch(let batch, let time):
                spool(decide(batch, now: time))
                progress.state.withLock { $0.settledEvents += batch.eventCount }
            case .received(let message):
                spool(received(message))
            }
        }

        /// The inbox closed: by ``finish(promptly:)``, which waits for what the interval held
        /// back and `offline`; or by the sink's release, which waits for nothing.
        private mutating func finish() {
            settleDropped()
            let waiter = progress.state.withLock { progress in
                progress.ended = true
                defer { progress.endWaiter = nil }
                return progress.endWaiter
            }
            guard let waiter else { return }
            let now = Monotonic.milliseconds
            spool(updates.heldBack(now: now, spooled: broker.pendingCount)
                  + [HomeAssistantMessage(updates.device.availabilityTopic, "offline")])
            waiter.resume()
        }

        /// Counts the events of dropped batches as settled: called with everything taken so far
        /// handled, and the dropped batches newer than that and older than what still waits.
        private func settleDropped() {
            progress.state.withLock { progress in
                progress.settledEvents += progress.droppedEvents
                progress.droppedEvents = 0
            }
        }

        private func reportDropped(_ count: Int) {
            printError("home assistant: spooling was slow: dropped the \(count) oldest update\(count == 1 ? "" : "s") waiting (at most \(HomeAssistantSink.inboxCapacity) wait)")
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
