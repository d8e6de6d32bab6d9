/// CRC-32 as in zlib, gzip and PNG (IEEE 802.3: reflected polynomial 0xEDB88320, initial
/// and final value 0xFFFFFFFF), so a spool file can be checked with everyday tools.
/// It guards every spool record and the head file: a torn write or a flipped bit is
/// found instead of being published as a wrong message.
package enum CRC32 {
    /// One entry per byte value: eight shift-and-xor steps done once, at first use
    /// (a static is initialised once, thread-safely).
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1
        }
        return value
    }

    /// The checksum of `bytes`.
    package static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        update(0, with: bytes)
    }

    /// The checksum of what `crc` covered followed by `bytes`, for data read in pieces.
    package static func update(_ crc: UInt32, with bytes: some Sequence<UInt8>) -> UInt32 {
        var value = ~crc
        table.withUnsafeBufferPointer { table in
            for byte in bytes {
                value = table[Int(UInt8(truncatingIfNeeded: value) ^ byte)] ^ (value >> 8)
            }
        }
        return ~value
    }
}
