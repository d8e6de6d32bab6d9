/// One message as stored in a segment file (the layout is in Spool.swift):
/// `[u32 LE body length][u32 LE CRC-32 of body][body]`,
/// body `[u8 qos][u8 retain][u16 LE topic length][topic UTF-8][payload]`.
enum SpoolRecord {
    /// The length and checksum in front of every body.
    static let headerSize = 8
    /// QoS, retain and the topic's length, in front of the topic.
    static let bodyPrefixSize = 4
    /// MQTT's largest packet (its remaining length's limit): no broker takes a larger
    /// message, so a longer length field can only be damage.
    static let maximumBodySize = 268_435_455

    /// What ``check(_:at:)`` found at an offset.
    enum Check: Equatable {
        /// A whole record whose checksum matches; the next one starts at `end`.
        case valid(end: Int)
        /// The record runs past the end of the bytes: what an interrupted append leaves.
        case truncated
        /// Bytes no append writes: a wrong checksum, an impossible length or field.
        case invalid(String)
    }

    /// Why `message` cannot be stored, or nil when it can.
    static func problem(with message: SpoolMessage) -> String? {
        if message.qos > 2 { return "QoS \(message.qos) (MQTT has 0, 1 and 2)" }
        let topicLength = message.topic.utf8.count
        if topicLength > Int(UInt16.max) { return "a topic of \(topicLength) bytes (at most 65,535)" }
        let bodySize = bodyPrefixSize + topicLength + message.payload.count
        if bodySize > maximumBodySize { return "a message of \(bodySize) bytes (at most \(maximumBodySize))" }
        return nil
    }

    /// The bytes `message` takes in a segment, header included.
    static func size(of message: SpoolMessage) -> Int {
        headerSize + bodyPrefixSize + message.topic.utf8.count + message.payload.count
    }

    /// Appends the record of `message` (valid: see ``problem(with:)``) to `bytes`.
    static func encode(_ message: SpoolMessage, into bytes: inout [UInt8]) {
        let start = bytes.count
        let topicLength = message.topic.utf8.count
        let bodySize = bodyPrefixSize + topicLength + message.payload.count
        // No reserveCapacity here: an exact reservation per record defeats the array's
        // geometric growth and copies the whole batch again for every record appended.
        appendLittleEndian(UInt32(bodySize), to: &bytes)
        appendLittleEndian(UInt32(0), to: &bytes)  // the checksum, filled in below
        bytes.append(message.qos)
        bytes.append(message.retain ? 1 : 0)
        appendLittleEndian(UInt16(topicLength), to: &bytes)
        bytes.append(contentsOf: message.topic.utf8)
        bytes.append(contentsOf: message.payload)
        let crc = CRC32.checksum(bytes[(start + headerSize)...])
        for index in 0..<4 { bytes[start + 4 + index] = UInt8(truncatingIfNeeded: crc >> (8 * index)) }
    }

    /// Checks the record at `offset` of `bytes`: its length, checksum and fields.
    static func check(_ bytes: [UInt8], at offset: Int) -> Check {
        guard bytes.count - offset >= headerSize else { return .truncated }
        let bodySize = Int(readLittleEndian(bytes, at: offset, size: 4))
        guard bodySize >= bodyPrefixSize, bodySize <= maximumBodySize else {
            return .invalid("a record length of \(bodySize) bytes")
        }
        let bodyStart = offset + headerSize
        guard bytes.count - bodyStart >= bodySize else { return .truncated }
        let body = bytes[bodyStart..<(bodyStart + bodySize)]
        let stored = UInt32(readLittleEndian(bytes, at: offset + 4, size: 4))
        guard CRC32.checksum(body) == stored else { return .invalid("the record's checksum does not match") }
        let qos = bytes[bodyStart], retain = bytes[bodyStart + 1]
        let topicLength = Int(readLittleEndian(bytes, at: bodyStart + 2, size: 2))
        guard qos <= 2, retain <= 1, bodyPrefixSize + topicLength <= bodySize else {
            return .invalid("impossible fields (QoS \(qos), retain \(retain), topic length \(topicLength))")
        }
        return .valid(end: bodyStart + bodySize)
    }

    /// The message of the record at `offset`, which ``check(_:at:)`` found valid.
    static func decode(_ bytes: [UInt8], at offset: Int) -> SpoolMessage {
        let bodyStart = offset + headerSize
        let bodySize = Int(readLittleEndian(bytes, at: offset, size: 4))
        let topicLength = Int(readLittleEndian(bytes, at: bodyStart + 2, size: 2))
        let topicStart = bodyStart + bodyPrefixSize
        let payloadStart = topicStart + topicLength
        return SpoolMessage(
            topic: String(decoding: bytes[topicStart..<payloadStart], as: UTF8.self),
            payload: Array(bytes[payloadStart..<(bodyStart + bodySize)]),
            qos: bytes[bodyStart],
            retain: bytes[bodyStart + 1] == 1
        )
    }

    static func appendLittleEndian<Value: FixedWidthInteger>(_ value: Value, to bytes: inout [UInt8]) {
        for index in 0..<(Value.bitWidth / 8) { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }

    static func readLittleEndian(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<size { value |= UInt64(bytes[offset + index]) << (8 * index) }
        return value
    }
}
