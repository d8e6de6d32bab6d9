import LocTrack
import LocTrackDistance

/// What ``LiveHub`` keeps under its lock, and how each event changes it. Every change that
/// clients must hear of is published here, under the same lock, so ids, values and track
/// never disagree.
struct LiveState: Sendable {
    typealias Resumptions = [EventBroadcaster<EventWaiter>.Resumption]

    var events: EventBroadcaster<EventWaiter>
    var regions: LiveRegions?
    var track: TrackStore
    /// Today's distance and the trip under way (`/api/distance`).
    var distance: LiveDistance
    /// The local zone's offset from UTC at a moment: where today starts.
    let utcOffset: @Sendable (Int64) -> Int64
    /// `/api/fix`.
    var fixJSON: String?
    /// `/api/sky`.
    var skyJSON: String?
    var status = ReceiverStatus()
    /// The latest fix's time (receiver's clock) and when it arrived (monotonic ms).
    var lastFix: (time: Timestamp, arrived: Int64)?
    /// The session reported a break (an outage, a lost fix): the next fix starts a new
    /// segment of the GPX download.
    var breakBeforeNextFix = false

    init(
        events: EventBroadcaster<EventWaiter>, regions: LiveRegions?, track: TrackStore, distance: LiveDistance,
        utcOffset: @escaping @Sendable (Int64) -> Int64
    ) {
        self.events = events
        self.regions = regions
        self.track = track
        self.distance = distance
        self.utcOffset = utcOffset
    }

    /// A fix whose JSON line is `line`: the `fix` event, then the receiver's `status` if it
    /// changed, then `distance` if today's distance, motion or the trip changed, then the
    /// regions' events (what `monitor run` would print for it).
    mutating func take(_ fix: Fix, line: String, now: Int64) -> Resumptions {
        fixJSON = line
        lastFix = (fix.time, now)
        track.append(PackedTrackPoint(fix, startsSegment: breakBeforeNextFix))
        breakBeforeNextFix = false
        var resumptions = publish(.fix, line, now: now)
        let before = status
        status.applyFix(device: fix.device)
        if status != before { resumptions += publish(.status, status.json(lastFix: fix.time), now: now) }
        if distance.takeLive(TrackPoint(fix), utcOffset: utcOffset) {
            resumptions += publish(.distance, distance.json(), now: now)
        }
        for event in regions?.process(fix) ?? [] {
            resumptions += publish(.region, event, now: now)
        }
        return resumptions
    }

    mutating func take(sky json: String, now: Int64) -> Resumptions {
        skyJSON = json
        return publish(.sky, json, now: now)
    }

    mutating func take(_ gpsdStatus: GPSDStatus, now: Int64) -> Resumptions {
        switch gpsdStatus {
        case .waiting, .deviceLost, .fixLost, .noFixes: breakBeforeNextFix = true
        case .connected, .fixesResumed, .skippedReport: break
        }
        let before = status
        status.apply(gpsdStatus)
        guard status != before else { return [] }
        return publish(.status, status.json(lastFix: lastFix?.time), now: now)
    }

    /// `/api/status` at monotonic time `now`.
    func statusJSON(now: Int64) -> String {
        status.json(lastFix: lastFix?.time, lastFixAge: lastFix.map { Double(now - $0.arrived) / 1000 })
    }

    /// The earliest fix time (milliseconds since 1970) that `since` asks for, or nil for all.
    ///
    /// `since=SECONDS` counts back from now on loctrack's monotonic clock, carried over to
    /// the receiver's time scale through the latest fix (its time, and when it arrived):
    /// the machine's wall clock may be wrong where gpsd is the only clock (a boat, a Pi
    /// without a network). Before any live fix, the wall clock it is.
    func cutoff(_ since: TrackRequest.Since, now: Int64, wallClockSeconds: Int64) -> Int64? {
        switch since {
        case .start:
            return nil
        case .time(let time):
            return time.seconds * 1000 + Int64(time.nanoseconds / 1_000_000)
        case .secondsAgo(let seconds):
            let span = Int64((seconds * 1000).rounded())
            guard let lastFix else { return wallClockSeconds * 1000 - span }
            return lastFix.time.seconds * 1000 + Int64(lastFix.time.nanoseconds / 1_000_000) + (now - lastFix.arrived) - span
        }
    }

    private mutating func publish(_ name: ServerSentEvent.Name, _ data: String, now: Int64) -> Resumptions {
        events.publish(name, data: data, now: now).resumptions
    }
}
