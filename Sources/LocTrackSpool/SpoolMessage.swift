/// One message as the spool keeps it until the server has it: an MQTT message, or a
/// Traccar position (its OsmAnd query as the payload, on the topic `osmand`, QoS 1, not
/// retained: the QoS and retain flag mean nothing to an HTTP server, but the record
/// format is MQTT's).
package struct SpoolMessage: Sendable, Hashable {
    package var topic: String
    package var payload: [UInt8]
    /// MQTT quality of service: 0, 1 or 2.
    package var qos: UInt8
    package var retain: Bool

    package init(topic: String, payload: [UInt8], qos: UInt8, retain: Bool) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }
}

/// What ``Spool/append(_:)`` did.
package struct SpoolAppendResult: Sendable, Hashable {
    /// The sequence number of the first appended message; the others follow one by one.
    package var firstSequence: UInt64
    /// How many messages were appended (all that were given).
    package var count: Int
    /// How many unacknowledged messages, the oldest, were dropped to stay within the
    /// spool's limit; possibly some of those just appended. The CLI reports this count.
    package var droppedOldest: Int

    package init(firstSequence: UInt64, count: Int, droppedOldest: Int) {
        self.firstSequence = firstSequence
        self.count = count
        self.droppedOldest = droppedOldest
    }
}
