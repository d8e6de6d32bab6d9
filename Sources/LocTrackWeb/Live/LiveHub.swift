public import LocTrack
import LocTrackFormats
import Synchronization

/// The live side of `loctrack serve`: takes a session's events in order and keeps what the
/// routes read (``LiveReadings``): the latest fix, SKY and status, today's distance and the
/// trip under way, the regions' states, the track, and the event streams of `/events`.
///
/// All of it is under one `Mutex`, so that `/api/track`'s `lastEventId` and the track it
/// goes with are read at one instant: a page that loads the track and then opens
/// `/events?after=` that id gets exactly the fixes that came later. Formatting (a fix's
/// JSON line, a SKY report's JSON) happens before the lock is taken, and the clients'
/// waiting reads are resumed after it is let go.
///
/// ```swift
/// let hub = LiveHub(maxStreams: options.maxStreams, regions: regions, recordedTrack: track)
/// async let live: Void = hub.run(events: session.events())
/// // … serve `hub` to the routes; on SIGTERM: session.finish(), hub.finish()
/// ```
public final class LiveHub: LiveReadings, EventStreamHost {
    private let state: Mutex<LiveState>
    private let clock: LiveClock

    /// - Parameters:
    ///   - maxStreams: `--max-streams`: event streams open at once (more get `503`).
    ///   - regions: `--monitor`'s regions (``LiveRegions/load(monitor:)``); nil: none.
    ///   - recordedTrack: `--track`'s fixes (``RecordedTrack/load(pattern:)``): the track
    ///     starts with them, and today's distance with those since local midnight.
    public convenience init(maxStreams: Int = 64, regions: LiveRegions? = nil, recordedTrack: RecordedTrack? = nil) {
        self.init(
            limits: EventBroadcaster.Limits(maxStreams: maxStreams), regions: regions, recordedTrack: recordedTrack,
            clock: .system, run: EventID.newRun())
    }

    /// The seam for tests: the limits, the clocks and the run's name.
    package init(
        limits: EventBroadcaster<EventWaiter>.Limits, regions: LiveRegions? = nil, recordedTrack: RecordedTrack? = nil,
        trackCapacity: Int = TrackStore.defaultCapacity, clock: LiveClock, run: String
    ) {
        self.clock = clock
        state = Mutex(LiveState(
            events: EventBroadcaster(run: run, limits: limits), regions: regions,
            track: TrackStore(capacity: trackCapacity, recorded: recordedTrack?.points ?? []),
            distance: recordedTrack?.distance ?? LiveDistance(), utcOffset: clock.utcOffsetSeconds))
    }

    // MARK: Taking events

    /// Takes one event of the session, in order (one caller at a time: the session's
    /// consumer). A fix becomes the latest fix, a point of the track and of the odometer, a
    /// `fix` event, and possibly `status`, `distance` and `region` events; a SKY report the latest SKY and a `sky`
    /// event; a status a `status` event when the state it shows changed.
    public func ingest(_ event: GPSDEvent) {
        let now = clock.monotonicMilliseconds()
        let resumptions: [EventBroadcaster<EventWaiter>.Resumption]
        switch event {
        case .fix(let fix):
            let line = JSONLine.format(fix).dropLastNewline()
            resumptions = state.withLock { $0.take(fix, line: line, now: now) }
        case .sky(let sky):
            let json = SkyJSON.encode(sky)
            resumptions = state.withLock { $0.take(sky: json, now: now) }
        case .status(let status):
            resumptions = state.withLock { $0.take(status, now: now) }
        }
        resume(resumptions)
    }

    /// Ingests `events` until they end, throwing what they throw, and sends the event
    /// streams' keep-alives meanwhile. A `GPSDSession`'s sequence also ends when the task
    /// running this is cancelled.
    public func run<Events: AsyncSequence<GPSDEvent, Failure>, Failure: Error>(events: Events) async throws(Failure) {
        let keepAlives = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                self?.sendKeepAlives()
            }
        }
        defer { keepAlives.cancel() }
        for try await event in events {
            ingest(event)
            if Task.isCancelled { return }
        }
    }

    /// Ends every event stream (the server stops); streams opened later end at once.
    public func finish() {
        finishStreams()
    }

    // MARK: LiveReadings

    public func latestFixJSON() -> String? {
        state.withLock { $0.fixJSON }
    }

    public func statusJSON() -> String {
        let now = clock.monotonicMilliseconds()
        return state.withLock { $0.statusJSON(now: now) }
    }

    public func skyJSON() -> String? {
        state.withLock { $0.skyJSON }
    }

    public func distanceJSON() -> String {
        state.withLock { $0.distance.json() }
    }

    public func regionsGeoJSON() -> String {
        state.withLock { $0.regions?.geoJSON } ?? LiveRegions.emptyGeoJSON
    }

    public func track(_ request: TrackRequest) -> TrackDocument {
        let now = clock.monotonicMilliseconds()
        let wallClock = clock.wallClockSeconds()
        // Copied out under the lock, encoded without it.
        let (points, lastEventID) = state.withLock { state in
            (state.track.points(since: state.cutoff(request.since, now: now, wallClockSeconds: wallClock)),
             state.events.lastEventID)
        }
        switch request.format {
        case .points:
            let kept = TrackThinning.largestTriangleThreeBuckets(points, maximum: request.maximumPoints)
            return TrackDocument(
                contentType: "application/json", body: TrackPointsJSON.encode(points, kept: kept, lastEventID: lastEventID))
        case .geojson:
            return TrackDocument(
                contentType: "application/geo+json", contentDisposition: "attachment; filename=\"track.geojson\"",
                body: TrackGeoJSON.encode(points))
        case .gpx:
            return TrackDocument(
                contentType: "application/gpx+xml", contentDisposition: "attachment; filename=\"track.gpx\"",
                body: TrackGPX.encode(points))
        }
    }

    public func openEventStream(after lastEventID: String?) -> EventStreamOpening {
        openStream(after: lastEventID)
    }

    // MARK: EventStreamHost

    package func withEventBroadcaster<Result: Sendable>(_ body: (inout EventBroadcaster<EventWaiter>) -> Result) -> Result {
        state.withLock { body(&$0.events) }
    }

    package func monotonicMilliseconds() -> Int64 {
        clock.monotonicMilliseconds()
    }
}

extension String {
    /// The line without the newline a line format ends it with.
    fileprivate func dropLastNewline() -> String {
        hasSuffix("\n") ? String(dropLast()) : self
    }
}
