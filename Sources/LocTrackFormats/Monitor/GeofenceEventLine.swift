public import LocTrack
package import LocTrackMonitor

/// One monitor event as one output line, in `monitor run`'s formats (docs/json.md).
package enum GeofenceEventLine {
    /// `{"class":"EVENT","monitor":…,"id":…,"state":…,"previous":…,"time":…,"lat":…,"lon":…,"eph":…}`,
    /// plus `"accuracyLimited":true` when the fixes could not decide. Values that are not
    /// known (no fix for `unmonitored`, no eph) are left out.
    package static func json(_ event: GeofenceEvent) -> String {
        var line = "{\"class\":\"EVENT\",\"monitor\":\"\(JSONText.escaped(event.monitor))\""
        line += ",\"id\":\"\(JSONText.escaped(event.identifier))\",\"state\":\"\(event.state)\""
        line += ",\"previous\":\"\(event.previousState)\""
        if let fix = event.fix {
            line += ",\"time\":\"\(fix.time.iso8601)\",\"lat\":"
            line.appendFixed(fix.latitude, decimals: 9)
            line += ",\"lon\":"
            line.appendFixed(fix.longitude, decimals: 9)
            if let eph = fix.horizontalError, eph.isFinite {
                line += ",\"eph\":"
                line.appendFixed(eph, decimals: 3)
            }
        }
        if event.accuracyLimited { line += ",\"accuracyLimited\":true" }
        return line + "}\n"
    }

    /// `2026-03-01T10:00:01.000Z  home  satisfied  47.3766210, 8.5417330  ±4.2 m`.
    package static func text(_ event: GeofenceEvent) -> String {
        var line = event.fix.map { "\($0.time.iso8601)  " } ?? ""
        line += "\(event.identifier)  "
        line += event.accuracyLimited ? "\(event.state), accuracy too poor to decide" : "\(event.state)"
        if let fix = event.fix {
            line += "  "
            line.appendFixed(fix.latitude, decimals: 7)
            line += ", "
            line.appendFixed(fix.longitude, decimals: 7)
            if let eph = fix.horizontalError, eph.isFinite {
                line += "  ±"
                line.appendFixed(eph, decimals: 1)
                line += " m"
            } else {
                line += "  no error estimate"
            }
        }
        return line + "\n"
    }

    /// An OwnTracks `transition` message: `enter` on satisfied, `leave` on unsatisfied
    /// after an enter or an assumed inside, and `leave` when a region is removed while
    /// inside (at `lastFix`, the newest position known: a removal has no fix of its own),
    /// so that every `enter` gets its `leave`. Other events have no OwnTracks form (nil):
    /// the first decision `unsatisfied` from unknown (nothing was left), accuracy limits,
    /// and removals of regions not entered.
    ///
    /// `wtst` identifies the region in OwnTracks: the time (Unix seconds) it was added.
    /// `desc` is the region's `title` (its display name, the zone Home Assistant looks for),
    /// else its identifier; `rid` is always the identifier; `tid` the tracker id, as in
    /// the location messages. `acc` is the fix's `eph` in whole metres, at least 1, as in
    /// ``OwnTracksEncoder``; a fix without one has no `acc`.
    package static func ownTracks(
        _ event: GeofenceEvent, regionAdded wtst: Int64, lastFix: Fix? = nil, title: String? = nil, trackerID: String
    ) -> String? {
        guard !event.accuracyLimited else { return nil }
        let transition: String
        switch (event.previousState, event.state) {
        case (_, .satisfied): transition = "enter"
        case (.satisfied, .unsatisfied), (.satisfied, .unmonitored): transition = "leave"
        default: return nil
        }
        guard let fix = event.fix ?? lastFix else { return nil }
        let desc = title ?? event.identifier
        var line = "{\"_type\":\"transition\",\"event\":\"\(transition)\",\"desc\":\"\(JSONText.escaped(desc))\""
        line += ",\"tst\":\(fix.time.seconds),\"wtst\":\(wtst),\"lat\":"
        line.appendFixed(fix.latitude, decimals: 7)
        line += ",\"lon\":"
        line.appendFixed(fix.longitude, decimals: 7)
        // OwnTracks' acc is whole metres and must be positive; gpsd's eph is a float.
        if let accuracy = OwnTracksEncoder.accuracy(fix) { line += ",\"acc\":\(accuracy)" }
        line += ",\"t\":\"c\",\"tid\":\"\(JSONText.escaped(trackerID))\",\"rid\":\"\(JSONText.escaped(event.identifier))\"}\n"
        return line
    }
}

/// What an OwnTracks `transition` line needs beyond its event: when the region was added
/// (`wtst`, how OwnTracks names a region), its title (`desc`), the tracker id (`tid`), and
/// a position for an event that has no fix of its own (a region removed while inside).
public struct OwnTracksTransitionContext: Sendable {
    public let regionAdded: Int64
    public let title: String?
    public let lastFix: Fix?
    public let trackerID: String

    public init(regionAdded: Int64, title: String?, lastFix: Fix?, trackerID: String) {
        self.regionAdded = regionAdded
        self.title = title
        self.lastFix = lastFix
        self.trackerID = trackerID
    }
}

extension GeofenceEventLine {
    /// The OwnTracks `transition` line for `event` in `context` (nil: no line, as ``ownTracks(_:regionAdded:lastFix:title:trackerID:)``).
    package static func ownTracks(_ event: GeofenceEvent, context: OwnTracksTransitionContext) -> String? {
        ownTracks(
            event, regionAdded: context.regionAdded, lastFix: context.lastFix, title: context.title,
            trackerID: context.trackerID)
    }
}
