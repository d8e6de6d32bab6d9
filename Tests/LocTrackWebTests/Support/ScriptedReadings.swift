import LocTrack
import LocTrackWeb
import Synchronization

/// A double of the live side: fixed answers, and a record of what the routes asked for
/// (the `after` of each stream opened, each track request), so that tests see exactly what
/// reached the live side.
final class ScriptedReadings: LiveReadings {
    let fix: String?
    let status: String
    let sky: String?
    let distance: String
    let regions: String
    let document: TrackDocument
    /// Chunks each opened stream yields; nil: every opening is `.full`.
    let streamChunks: [[UInt8]]?
    private let calls = Mutex<(afters: [String?], tracks: [TrackRequest])>(([], []))

    init(fix: String? = nil, status: String = #"{"gpsd":"connecting","receiver":"waiting"}"#, sky: String? = nil,
         distance: String = #"{"today":0,"moving":false,"trip":null}"#,
         regions: String = #"{"type":"FeatureCollection","features":[]}"#,
         document: TrackDocument = TrackDocument(contentType: "application/json", body: Array(#"{"points":[]}"#.utf8)),
         streamChunks: [[UInt8]]? = [Array(": hello\n\n".utf8)]) {
        self.fix = fix
        self.status = status
        self.sky = sky
        self.distance = distance
        self.regions = regions
        self.document = document
        self.streamChunks = streamChunks
    }

    /// The `after` of every stream opened, in order.
    var openedAfter: [String?] { calls.withLock { $0.afters } }
    /// Every track request, in order.
    var trackRequests: [TrackRequest] { calls.withLock { $0.tracks } }

    func latestFixJSON() -> String? { fix }
    func statusJSON() -> String { status }
    func skyJSON() -> String? { sky }
    func distanceJSON() -> String { distance }
    func regionsGeoJSON() -> String { regions }

    func track(_ request: TrackRequest) -> TrackDocument {
        calls.withLock { $0.tracks.append(request) }
        return document
    }

    func openEventStream(after lastEventID: String?) -> EventStreamOpening {
        calls.withLock { $0.afters.append(lastEventID) }
        guard let streamChunks else { return .full }
        let remaining = Mutex(streamChunks[...])
        return .opened(EventStream(next: { remaining.withLock { $0.popFirst() } }, cancel: {}))
    }
}
