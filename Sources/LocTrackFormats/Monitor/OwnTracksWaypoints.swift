import LocTrack
package import LocTrackMonitor

/// A monitor's regions as one OwnTracks `waypoints` message, the message the OwnTracks
/// apps publish on `owntracks/USER/DEVICE/waypoints` ("Publish waypoints"), so that Home
/// Assistant's OwnTracks integration makes each region a zone ("USER DEVICE - desc"):
///
/// `{"_type":"waypoints","waypoints":[{"_type":"waypoint","desc":"Home","lat":52.5163000,"lon":13.3777000,"rad":80,"tst":1795000000,"rid":"home"}]}`
///
/// `desc` is the region's title, else its identifier (what its transitions carry);
/// `lat`/`lon` the centre in degrees with 7 decimals; `rad` the radius in whole metres,
/// rounded up (at least 1), so the zone holds the region; `tst` when the region was added
/// (Unix seconds: the `wtst` of its transitions; 0 when the state file does not know);
/// `rid` its identifier. A polygon is its ``GeofenceCondition/enclosingCircle``.
package enum OwnTracksWaypoints {
    package static func message(_ records: [GeofenceRecord]) -> String {
        var line = "{\"_type\":\"waypoints\",\"waypoints\":["
        for (index, record) in records.enumerated() {
            if index > 0 { line += "," }
            line += waypoint(record)
        }
        return line + "]}\n"
    }

    package static func waypoint(_ record: GeofenceRecord) -> String {
        let circle = record.condition.enclosingCircle
        var line = "{\"_type\":\"waypoint\",\"desc\":\"\(JSONText.escaped(record.displayName))\",\"lat\":"
        line.appendFixed(circle.center.latitude, decimals: 7)
        line += ",\"lon\":"
        line.appendFixed(circle.center.longitude, decimals: 7)
        line += ",\"rad\":\(radius(circle.radius)),\"tst\":\(record.added?.seconds ?? 0)"
        line += ",\"rid\":\"\(JSONText.escaped(record.identifier))\"}"
        return line
    }

    /// Whole metres, rounded up, at least 1.
    package static func radius(_ metres: Double) -> Int {
        guard metres.isFinite, metres < 1e9 else { return 1_000_000_000 }
        return max(1, Int(metres.rounded(.up)))
    }
}
