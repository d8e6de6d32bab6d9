import LocTrack
package import LocTrackFormats

/// How a track file is laid out, and where recording continues in one that exists.
///
/// Line formats (json, geojson, owntracks, text, and csv after its header) only ever
/// append whole lines. A GPX file always ends with its closing tags; new points are
/// written over them, followed by the tags again, in one write.
package enum TrackFileLayout: Equatable {
    /// One record per line; `header` (CSV's) comes first in a new file.
    case lines(header: [UInt8]?)
    case gpx

    package init(format: OutputFormat) {
        switch format {
        case .gpx: self = .gpx
        case .csv: self = .lines(header: Array(CSVEncoder.header.utf8))
        case .json, .geojson, .owntracks, .text, .nmea: self = .lines(header: nil)
        }
    }

    // GPX's framing as bytes, made once: the track writer adds them with every batch.
    package static let gpxHeader = Array(GPXEncoder.header.utf8)
    package static let gpxSegmentStart = Array(GPXEncoder.segmentStart.utf8)
    package static let gpxSegmentBreak = Array((GPXEncoder.segmentEnd + GPXEncoder.segmentStart).utf8)
    package static let gpxTail = Array((GPXEncoder.segmentEnd + GPXEncoder.documentEnd).utf8)

    /// Where recording continues in an existing file.
    package enum Resume: Equatable {
        /// Write from `offset` on (for GPX, over the closing tags, starting a new segment).
        /// `cut`: the bytes after `offset` are not part of the track (a power cut's torn end);
        /// they are dropped with the first write, and stderr says so.
        case at(offset: Int64, cut: Int64)
        /// The file is not one loctrack can continue in this format; it is left as it is.
        case refused(String)
    }

    /// Where to continue in a file of `size` bytes whose first bytes are `head` and whose
    /// last bytes (from `tailStart`) are `tail`.
    package func resume(size: Int64, head: [UInt8], tail: [UInt8], tailStart: Int64) -> Resume {
        // A power cut can leave the end of a file as zeros (its size was saved, its data not).
        var end = tail.count
        while end > 0, tail[end - 1] == 0 { end -= 1 }
        switch self {
        case .lines(let header):
            if let header, size > 0, !head.starts(with: header) {
                return .refused("its first line is not loctrack's CSV header (other columns)")
            }
            // Continue after the last whole line; a line without its newline was cut short.
            let lastNewline = tail[..<end].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
            if lastNewline == 0, tailStart > 0 { return .refused("no line ends in its last \(tail.count) bytes") }
            let offset = tailStart + Int64(lastNewline)
            return .at(offset: offset, cut: size - offset)
        case .gpx:
            guard head.starts(with: Array("<?xml".utf8)), lastRange(of: Array("<trk>".utf8), in: head) != nil
                || lastRange(of: Array("<trk>".utf8), in: tail) != nil else {
                return .refused("it is not a GPX track (no <?xml … <trk>)")
            }
            guard let point = lastRange(of: Array("</trkpt>".utf8), in: Array(tail[..<end])) else {
                return .refused("no </trkpt> in its last \(tail.count) bytes")
            }
            var offset = point.upperBound
            if offset < end, tail[offset] == 0x0A { offset += 1 }
            let rest = Array(tail[offset..<tail.count])
            let clean = rest == Self.gpxTail || Self.isWhitespaceVariant(rest)
            let absolute = tailStart + Int64(offset)
            return .at(offset: absolute, cut: clean ? 0 : size - absolute)
        }
    }

    /// Where `needle` last occurs in `bytes`.
    private func lastRange(of needle: [UInt8], in bytes: [UInt8]) -> Range<Int>? {
        guard bytes.count >= needle.count, let first = needle.first else { return nil }
        var start = bytes.count - needle.count
        while start >= 0 {
            if bytes[start] == first, bytes[start..<(start + needle.count)].elementsEqual(needle) {
                return start..<(start + needle.count)
            }
            start -= 1
        }
        return nil
    }

    /// `</trkseg></trk></gpx>` with other whitespace: another tool's way of closing.
    private static func isWhitespaceVariant(_ bytes: [UInt8]) -> Bool {
        let compact = bytes.filter { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
        return compact == Array("</trkseg></trk></gpx>".utf8)
    }
}
