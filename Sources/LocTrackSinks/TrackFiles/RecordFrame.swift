import LocTrack
package import LocTrackFormats

/// What loctrack hands its track writer (``TrackWriter``, a process of its own) for each
/// fix or event, over a pipe:
/// `[u32 LE payload length][u8 flags][i64 LE UTC seconds][payload]`.
///
/// The payload is the record as the file holds it (a JSON or CSV line, a GPX `<trkpt>`
/// line); the time picks the file (`--output` fields); the flags say where a GPX track
/// breaks. A frame cut short, by a SIGKILL of loctrack in the middle of handing it over,
/// is never written.
package enum RecordFrame {
    package static let headerSize = 13
    /// The record starts a new track segment (a gap, a loss of fix, an outage).
    package static let startsSegment: UInt8 = 1

    package struct Decoded: Equatable {
        var seconds: Int64
        var startsSegment: Bool
        var payload: ArraySlice<UInt8>
    }

    /// Appends one frame holding `payload`, as written by `writePayload`.
    package static func append(
        seconds: Int64, startsSegment: Bool, into output: inout OutputBytes,
        writePayload: (inout OutputBytes) -> Void
    ) {
        let start = output.count
        output.append(littleEndian: UInt32(0))  // the length, filled in below
        output.append(byte: startsSegment ? Self.startsSegment : 0)
        output.append(littleEndian: UInt64(bitPattern: seconds))
        let payloadStart = output.count
        writePayload(&output)
        let length = UInt32(output.count - payloadStart)
        output.overwrite(at: start, with: (0..<4).map { UInt8(truncatingIfNeeded: length >> (8 * $0)) })
    }

    /// The whole frames at the start of `bytes`, and how many bytes they took.
    package static func decode(_ bytes: ArraySlice<UInt8>) -> (frames: [Decoded], consumed: Int) {
        var frames: [Decoded] = []
        var offset = bytes.startIndex
        while bytes.endIndex - offset >= headerSize {
            let length = Int(littleEndian(bytes, at: offset, size: 4))
            guard bytes.endIndex - offset - headerSize >= length else { break }
            let seconds = Int64(bitPattern: littleEndian(bytes, at: offset + 5, size: 8))
            let payload = bytes[(offset + headerSize)..<(offset + headerSize + length)]
            frames.append(Decoded(seconds: seconds, startsSegment: bytes[offset + 4] & Self.startsSegment != 0,
                                  payload: payload))
            offset += headerSize + length
        }
        return (frames, offset - bytes.startIndex)
    }

    private static func littleEndian(_ bytes: ArraySlice<UInt8>, at offset: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in (0..<size).reversed() { value = value << 8 | UInt64(bytes[offset + index]) }
        return value
    }
}

extension OutputBytes {
    package mutating func append<Value: FixedWidthInteger & UnsignedInteger>(littleEndian value: Value) {
        for index in 0..<(Value.bitWidth / 8) { append(byte: UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }
}
