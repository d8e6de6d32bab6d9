import LocTrackFormats

/// `/api/track?format=points`: `{"lastEventId":…,"total":…,"points":[[ms,lat,lon,eph],…]}`
/// (docs/http.md), written straight into bytes: no String per point, so a day at 1 Hz
/// thinned to 5,000 points costs one buffer.
enum TrackPointsJSON {
    /// - Parameters:
    ///   - points: the fixes since the request's `since`; `total` is their count.
    ///   - kept: the indices of `points` to write (``TrackThinning``), ascending.
    static func encode(_ points: [PackedTrackPoint], kept: [Int], lastEventID: EventID) -> [UInt8] {
        // ~45 bytes a point: 13 digits of time, two 7-decimal angles, eph.
        var bytes = OutputBytes(reservingCapacity: 80 + 48 * kept.count)
        bytes.append("{\"lastEventId\":\"")
        bytes.append(lastEventID.description)
        bytes.append("\",\"total\":")
        bytes.append(points.count)
        bytes.append(",\"points\":[")
        var first = true
        for index in kept {
            let point = points[index]
            bytes.append(first ? "[" : ",[")
            first = false
            bytes.append(Int(point.time))
            bytes.append(byte: 0x2C)
            // 7 decimals: about a centimetre, finer than any fix.
            bytes.appendFixed(point.latitude, decimals: 7)
            bytes.append(byte: 0x2C)
            bytes.appendFixed(point.longitude, decimals: 7)
            bytes.append(byte: 0x2C)
            if let eph = point.horizontalError {
                bytes.appendFixed(eph, decimals: 3)
            } else {
                bytes.append("null")
            }
            bytes.append(byte: 0x5D)
        }
        bytes.append("]}")
        return bytes.bytes
    }
}
