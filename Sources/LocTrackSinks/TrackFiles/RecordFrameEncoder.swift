package import LocTrack
package import LocTrackFormats

/// `--output`: each fix as a ``RecordFrame`` for the track writer, holding what the file
/// gets in `format`. A GPX point comes without its segment: the frame's flag says where
/// a segment starts (a gap or time going backwards, as ``GPXEncoder`` decides, or a
/// break in the track), and the writer opens and closes segments in each file.
package struct RecordFrameEncoder: FixEncoder {
    private let format: OutputFormat
    private var lineEncoder: any FixEncoder
    private var lastTime: Timestamp?
    private var breakRequested = false

    package init(format: OutputFormat, trackerID: String?) {
        self.format = format
        lineEncoder = format.makeEncoder(trackerID: trackerID)
    }

    package mutating func encode(_ fix: Fix) -> String {
        var bytes = OutputBytes()
        encode(fix, into: &bytes)
        return String(decoding: bytes.bytes, as: UTF8.self)
    }

    package mutating func encode(_ fix: Fix, into output: inout OutputBytes) {
        let startsSegment = breakRequested || GPXEncoder.isGap(after: lastTime, before: fix)
        breakRequested = false
        lastTime = fix.time
        let isGPX = format == .gpx
        RecordFrame.append(seconds: fix.time.seconds, startsSegment: startsSegment, into: &output) { payload in
            if isGPX { GPXEncoder.writePoint(fix, into: &payload) } else { lineEncoder.encode(fix, into: &payload) }
        }
    }

    package mutating func breakTrack() {
        breakRequested = true
    }
}
