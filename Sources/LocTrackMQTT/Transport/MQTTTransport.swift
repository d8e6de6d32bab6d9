import LocTrackSpool

/// The publisher's seam to the broker: an MQTT client that one thread drives a step at
/// a time. libmosquitto's client (``MQTTConnection``) is the real one; the unit tests use
/// an in-memory broker that they accept, refuse, acknowledge and drop by hand.
///
/// What the broker says comes back through ``takeEvents()``, never through a call's
/// result, so the state machine sees the real and the test transport alike. Closing is
/// the transport's `deinit`.
///
/// ``PublisherLoop`` is generic over it: the per-message ``publish(_:)`` is a direct call.
protocol MQTTTransport: AnyObject {
    /// Starts the first connection (non-blocking); CONNACK arrives as an event.
    func connect() throws(MQTTError)
    /// Connects again with the same session. The transport itself sends again, in order,
    /// the QoS 1/2 messages still unacknowledged (MQTT's session resumption): the
    /// publisher never hands a message over twice.
    func reconnect() throws(MQTTError)
    /// Says goodbye (DISCONNECT); it goes out with the next ``exchangePackets()``.
    func disconnect()
    /// Hands `message` over; returns its message id, which its acknowledgement carries.
    func publish(_ message: SpoolMessage) throws(MQTTError) -> Int32
    /// Subscribes to `topic` at QoS 1; its messages arrive as events.
    func subscribe(_ topic: String) throws(MQTTError)

    /// The descriptor to `poll()`, or -1 while there is none (waiting to retry).
    var socket: Int32 { get }
    /// Whether there are bytes waiting to be written (poll for `POLLOUT` too).
    var wantsWrite: Bool { get }
    /// Reads, writes and keeps the connection alive: one step of the network loop.
    /// Throws when the connection failed (the events may say why better).
    func exchangePackets() throws(MQTTError)
    /// Writes what is queued (the last DISCONNECT) as far as the socket takes it.
    func writePendingPackets()
    /// What happened since the last call.
    func takeEvents() -> MQTTEvents

    /// Text for a CONNACK return code, for the status that reports it.
    static func connackText(_ code: Int32) -> String
}
