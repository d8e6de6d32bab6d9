@testable import LocTrackMQTT
import Testing

@Suite("Spool CRC-32 (zlib's)")
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
}
