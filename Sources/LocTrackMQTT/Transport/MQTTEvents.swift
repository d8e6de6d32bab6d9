/// What the broker's side reported since the publisher last asked (libmosquitto's
/// callbacks, or the test's in-memory broker): plain values, so the state machine can
/// take them as they are.
struct MQTTEvents {
    /// CONNACK's return code: 0 accepted, 1–5 refused (MQTT 3.1.1 §3.2.2.3).
    var connackCodes: [Int32] = []
    /// Message ids the broker acknowledged (PUBACK for QoS 1, PUBCOMP for QoS 2,
    /// or handed to the socket for QoS 0).
    var published: [Int32] = []
    /// Disconnections: 0 asked for, anything else unexpected.
    var disconnects: [Int32] = []
    /// Messages that arrived on the subscriptions, in order.
    var messages: [ReceivedMessage] = []
}

/// A message the broker sent this client (from a subscription).
public struct ReceivedMessage: Sendable, Hashable {
    public var topic: String
    public var payload: [UInt8]

    public init(topic: String, payload: [UInt8]) {
        self.topic = topic
        self.payload = payload
    }
}
