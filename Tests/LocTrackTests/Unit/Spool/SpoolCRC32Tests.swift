import LocTrackTestSupport
@testable import LocTrackMQTT
@testable import LocTrackSpool
import Testing

@Suite("Spool CRC-32 (zlib's)", .timeLimit(.minutes(1)))
struct SpoolCRC32Tests {
    @Test("given known inputs when checksummed then zlib's values come out",
          arguments: [("", UInt32(0)), ("a", 0xE8B7_BE43), ("123456789", 0xCBF4_3926),
                      ("The quick brown fox jumps over the lazy dog", 0x414F_A339)])
    func knownVectors(input: String, expected: UInt32) {
        #expect(CRC32.checksum(Array(input.utf8)) == expected)
    }

    @Test("given bytes split in two when updated piece by piece then the checksum equals the whole's")
    func pieces() {
        let bytes = Array("123456789".utf8)
        #expect(CRC32.update(CRC32.checksum(bytes[..<4]), with: bytes[4...]) == 0xCBF4_3926)
    }

    @Test("given every length up to 70 bytes when checksummed eight at a time then the bit-by-bit value comes out")
    func slicingMatchesBitwise() {
        var generator = SplitMix64(seed: 11)
        for length in 0...70 {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            #expect(CRC32.checksum(bytes) == Self.bitwise(bytes), "length \(length)")
            // A sequence without contiguous storage takes the byte-at-a-time path.
            #expect(CRC32.checksum(bytes.lazy.map { $0 }) == Self.bitwise(bytes), "length \(length), lazy")
        }
    }

    /// The definition: one shift per bit, no tables.
    private static func bitwise(_ bytes: [UInt8]) -> UInt32 {
        var value: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            value ^= UInt32(byte)
            for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
        }
        return ~value
    }
}
