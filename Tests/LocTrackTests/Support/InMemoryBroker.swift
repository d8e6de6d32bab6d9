@testable import LocTrackMQTT
@testable import LocTrackSpool
@testable import LocTrackFormats
@testable import LocTrackSinks

/// An MQTT broker and the network to it in one object, for the publisher's unit tests:
/// the publisher uses it as its ``MQTTTransport``, and the test decides what the broker
/// does and when (accept or refuse a connection, acknowledge some or all of what is in
/// flight, drop the connection). Everything the publisher hands over is recorded in
/// order, resends included, as swift-nio's `EmbeddedChannel` records what a handler
/// wrote. No socket, no thread, no time: the test calls it between the publisher's steps.
///
/// It behaves as libmosquitto does where the publisher relies on it: a reconnect
/// resends, in order and marked duplicate, the QoS 1/2 messages still in flight; QoS 0
/// is reported as published once handed over.
final class InMemoryBroker: MQTTTransport {
    /// One PUBLISH as the broker received it.
    struct Delivery: Equatable, CustomStringConvertible {
        let message: SpoolMessage
        let messageID: Int32
        /// A resend after a reconnect (MQTT's DUP flag).
        let duplicate: Bool

        var description: String { "\(String(decoding: message.payload, as: UTF8.self))\(duplicate ? " (dup)" : "")" }
    }

    enum Attempt: Equatable {
        case connect, reconnect
    }

    enum State: Equatable {
        case disconnected, connecting, connected
    }

    /// Every connection attempt, in order.
    private(set) var attempts: [Attempt] = []
    /// Every SUBSCRIBE received, in order.
    private(set) var subscriptions: [String] = []
    /// Every PUBLISH received, in order.
    private(set) var deliveries: [Delivery] = []
    /// QoS 1/2 messages received and not yet acknowledged, oldest first.
    private(set) var inflight: [(messageID: Int32, message: SpoolMessage)] = []
    /// The most messages ever in flight at once.
    private(set) var mostInflight = 0
    private(set) var state = State.disconnected
    /// The client said goodbye (DISCONNECT) this many times.
    private(set) var goodbyes = 0
    /// The next connect or reconnect call fails at once (as a name that does not resolve).
    var failNextAttempt = false
    private var events = MQTTEvents()
    private var nextMessageID: Int32 = 1

    // MARK: The test's side

    /// The broker sends CONNACK 0; after a reconnect the client resends what is in flight.
    func accept() {
        precondition(state == .connecting, "accept() without a connection attempt")
        state = .connected
        events.connackCodes.append(0)
        if attempts.last == .reconnect {
            for (messageID, message) in inflight {
                deliveries.append(Delivery(message: message, messageID: messageID, duplicate: true))
            }
        }
    }

    /// The broker answers CONNACK `code` (non-zero) and closes the connection.
    func refuse(code: Int32) {
        precondition(state == .connecting, "refuse(code:) without a connection attempt")
        state = .disconnected
        events.connackCodes.append(code)
    }

    /// The broker acknowledges the oldest `count` messages in flight (all when nil).
    func acknowledge(first count: Int? = nil) {
        let taken = min(count ?? inflight.count, inflight.count)
        events.published += inflight.prefix(taken).map(\.messageID)
        inflight.removeFirst(taken)
    }

    /// The connection drops (or a connection attempt fails) without a word.
    func dropConnection() {
        state = .disconnected
        events.disconnects.append(7)  // MOSQ_ERR_CONN_LOST
    }

    /// The payloads received, as text, in order.
    var deliveredTexts: [String] { deliveries.map(\.description) }

    // MARK: MQTTTransport

    func connect() throws(MQTTError) {
        try attempt(.connect)
    }

    func reconnect() throws(MQTTError) {
        try attempt(.reconnect)
    }

    func disconnect() {
        goodbyes += 1
        if state != .disconnected { events.disconnects.append(0) }
        state = .disconnected
    }

    func publish(_ message: SpoolMessage) throws(MQTTError) -> Int32 {
        guard state == .connected else { throw MQTTError(call: "publish", code: 4, errorNumber: nil) }  // MOSQ_ERR_NO_CONN
        defer { nextMessageID += 1 }
        deliveries.append(Delivery(message: message, messageID: nextMessageID, duplicate: false))
        if message.qos == 0 { events.published.append(nextMessageID) } else { inflight.append((nextMessageID, message)) }
        mostInflight = max(mostInflight, inflight.count)
        return nextMessageID
    }

    func subscribe(_ topic: String) throws(MQTTError) {
        subscriptions.append(topic)
    }

    /// Another client published `payload` on `topic`, which this client subscribed to.
    func send(_ payload: String, on topic: String) {
        precondition(subscriptions.contains(topic), "send(_:on:) to a topic not subscribed to")
        events.messages.append(ReceivedMessage(topic: topic, payload: Array(payload.utf8)))
    }

    var socket: Int32 { -1 }
    var wantsWrite: Bool { false }
    func exchangePackets() throws(MQTTError) {}
    func writePendingPackets() {}

    func takeEvents() -> MQTTEvents {
        defer { events = MQTTEvents() }
        return events
    }

    static func connackText(_ code: Int32) -> String { "CONNACK \(code)" }

    private func attempt(_ attempt: Attempt) throws(MQTTError) {
        attempts.append(attempt)
        if failNextAttempt {
            failNextAttempt = false
            throw MQTTError(call: "connect", code: 14, errorNumber: nil)  // MOSQ_ERR_ERRNO without an errno
        }
        state = .connecting
    }
}
