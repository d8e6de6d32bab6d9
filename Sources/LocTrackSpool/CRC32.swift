/// CRC-32 as in zlib, gzip and PNG (IEEE 802.3: reflected polynomial 0xEDB88320, initial
/// and final value 0xFFFFFFFF), so a spool file can be checked with everyday tools.
/// It guards every spool record and the head file: a torn write or a flipped bit is
/// found instead of being published as a wrong message.
package enum CRC32 {
    /// Eight tables of 256 entries, built once at first use (a static is initialised once,
    /// thread-safely). Table 0 is the classic one (eight shift-and-xor steps per byte
    /// value); table k advances table k-1's entry by one more zero byte, which lets
    /// ``update(_:pointer:)`` fold eight bytes per step ("slicing-by-8").
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var value = UInt32(index)
            for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
            tables[index] = value
        }
        for slice in 1..<8 {
            for index in 0..<256 {
                let previous = tables[(slice - 1) * 256 + index]
                tables[slice * 256 + index] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// The checksum of `bytes`.
    package static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        update(0, with: bytes)
    }

    /// The checksum of what `crc` covered followed by `bytes`, for data read in pieces.
    package static func update(_ crc: UInt32, with bytes: some Sequence<UInt8>) -> UInt32 {
        // Every record is checked twice (appended, read back): over contiguous bytes the
        // loop runs on raw pointers, without a bounds check or an iterator per byte.
        if let value = bytes.withContiguousStorageIfAvailable({ update(crc, pointer: $0) }) { return value }
        var value = ~crc
        tables.withUnsafeBufferPointer { table in
            for byte in bytes {
                value = table[Int(UInt8(truncatingIfNeeded: value) ^ byte)] ^ (value >> 8)
            }
        }
        return ~value
    }

    private static func update(_ crc: UInt32, pointer bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var value = ~crc
        tables.withUnsafeBufferPointer { tables in
            guard let table = tables.baseAddress, var byte = bytes.baseAddress else { return }
            var remaining = bytes.count
            // Eight bytes per step: the running value absorbs the first four, and each byte
            // looks up the table for the distance it still has to travel.
            while remaining >= 8 {
                let low = value ^ (UInt32(byte[0]) | UInt32(byte[1]) << 8 | UInt32(byte[2]) << 16 | UInt32(byte[3]) << 24)
                value = table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(byte[4])] ^ table[2 * 256 + Int(byte[5])]
                    ^ table[1 * 256 + Int(byte[6])] ^ table[Int(byte[7])]
                byte += 8
                remaining -= 8
            }
            while remaining > 0 {
                value = table[Int(UInt8(truncatingIfNeeded: value) ^ byte.pointee)] ^ (value >> 8)
                byte += 1
                remaining -= 1
            }
        }
        return ~value
    }
}
