import LocTrack
import LocTrackFormats

/// `/api/track?format=gpx`: every fix as `stream --format gpx` writes it (LocTrackCLI's
/// ``GPXEncoder``: its header, `<trkpt>` lines and closing tags), with a new `<trkseg>`
/// where that would start one: a silence of over 10 s, time going back, or a break that
/// the session reported (an outage, a lost fix).
enum TrackGPX {
    static func encode(_ points: [PackedTrackPoint]) -> [UInt8] {
        var bytes = OutputBytes(reservingCapacity: 400 + 150 * points.count)
        bytes.append(GPXEncoder.header)
        var previous: PackedTrackPoint?
        for point in points {
            if let previous {
                let gap = point.time - previous.time > Int64(GPXEncoder.gapSeconds * 1000) || point.time < previous.time
                if gap || point.startsSegment {
                    bytes.append(GPXEncoder.segmentEnd)
                    bytes.append(GPXEncoder.segmentStart)
                }
            } else {
                bytes.append(GPXEncoder.segmentStart)
            }
            GPXEncoder.writePoint(
                latitude: point.latitude, longitude: point.longitude, elevation: point.altitudeMSL ?? point.altitudeHAE,
                time: point.timestamp,
                fixType: GPXEncoder.fixType(mode: point.isThreeD ? .threeD : .twoD, status: point.isDGPS ? .dgps : .gps),
                horizontalError: point.horizontalError, into: &bytes)
            previous = point
        }
        if previous != nil { bytes.append(GPXEncoder.segmentEnd) }
        bytes.append(GPXEncoder.documentEnd)
        return bytes.bytes
    }
}
