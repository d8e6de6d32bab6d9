/// What the routes read from the live side (Live/): the latest values, already encoded as
/// the API documents them (docs/http.md), the track, and the event streams. The routes
/// (HTTP/) are tested against a double of this; `LiveHub` is the real one.
public protocol LiveReadings: Sendable {
    /// `/api/fix`: the latest fix as a line of `stream --format json` (without the newline),
    /// nil before the first.
    func latestFixJSON() -> String?
    /// `/api/status`.
    func statusJSON() -> String
    /// `/api/sky`: nil before the first SKY.
    func skyJSON() -> String?
    /// `/api/distance`: today's distance and the trip under way.
    func distanceJSON() -> String
    /// `/api/regions`: a GeoJSON FeatureCollection (empty without `--monitor`).
    func regionsGeoJSON() -> String
    /// `/api/track` for a query that parsed.
    func track(_ request: TrackRequest) -> TrackDocument
    /// `/events`: a new stream that starts after `lastEventID` (the header, else `?after=`),
    /// or `.full` when `--max-streams` streams are open.
    func openEventStream(after lastEventID: String?) -> EventStreamOpening
}

public enum EventStreamOpening: Sendable {
    case opened(EventStream)
    case full
}
