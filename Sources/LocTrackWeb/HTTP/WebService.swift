import LocTrackProcess
import LocTrack
public import LocTrackServeOptions
public import LocTrackCharts

/// Everything `serve` answers, decided without a server: a request in, a response out
/// (docs/http.md). Serve/ hands each request here and writes back what it returns.
///
/// In order: a request with a body is refused (413); with a token, the token is checked
/// (401, or 303 for `?token=`), before anything else is revealed; then the method (405),
/// then the path, which must be exactly one of the listed paths (404) or a tile's
/// (``ChartTiles``). Every response gets the security headers.
///
/// Async for the tiles alone: a tile not in memory is read on a chart reader thread, and
/// the request waits for it without holding a thread. Everything else is answered at once.
public final class WebService: Sendable {
    private let readings: any LiveReadings
    private let assets: AssetCatalog
    private let access: AccessCheck?
    private let securityHeaders: [(name: String, value: String)]
    private let configuration: [UInt8]
    private let tiles: ChartTiles

    public static let allowedMethods = "GET, HEAD"

    /// - Parameter charts: the `--tiles-file` charts, opened (nil: none).
    public init(
        readings: any LiveReadings, assets: AssetCatalog, token: AccessToken?, options: ServeOptions,
        charts: ChartLibrary? = nil
    ) {
        self.readings = readings
        self.assets = assets
        self.access = token.map(AccessCheck.init(token:))
        self.securityHeaders = SecurityHeaders.fields(tilesOrigin: options.tiles?.origin)
        self.configuration = Array(
            ConfigDocument.json(options: options, layers: charts?.layers ?? [], version: LocTrackVersion.number).utf8)
        self.tiles = ChartTiles(charts)
    }

    public func respond(to request: WebRequest) async -> WebResponse {
        switch route(request) {
        case .answer(let answer):
            return finish(answer, for: request)
        case .tile(let address):
            return await withCheckedContinuation { continuation in
                tiles.response(for: address, ifNoneMatch: request.header("If-None-Match")) { answer in
                    continuation.resume(returning: self.finish(answer, for: request))
                }
            }
        }
    }

    /// A tile request answered without a task, for a server that reads requests on an event
    /// loop: `deliver` gets the answer at once on the calling thread when nothing must be
    /// read (the tile in memory, 304, 404, a refusal), else later on a chart reader thread.
    /// - Returns: false, and `deliver` is never called, when `request` is not for a tile.
    public func respondToTile(_ request: WebRequest, deliver: @escaping @Sendable (WebResponse) -> Void) -> Bool {
        guard request.path.hasPrefix(TileAddress.pathPrefix) else { return false }
        switch route(request) {
        case .answer(let answer):
            deliver(finish(answer, for: request))
        case .tile(let address):
            tiles.response(for: address, ifNoneMatch: request.header("If-None-Match")) { answer in
                deliver(self.finish(answer, for: request))
            }
        }
        return true
    }

    /// Every answer's last touch: the security headers, and HEAD's body taken away.
    private func finish(_ answer: WebResponse, for request: WebRequest) -> WebResponse {
        var response = answer
        response.headers = securityHeaders + response.headers
        // HEAD: GET's headers with the length GET's body would have, and no body. The server
        // library can only count the body it is given, so the length is given here.
        // 204 and 304 have no Content-Length at all (RFC 9110 8.6).
        if request.method == "HEAD", case .bytes(let body) = response.body {
            if response.status != 204 && response.status != 304 {
                response.headers.append(("Content-Length", String(body.count)))
            }
            response.body = .bytes([])
        }
        return response
    }

    /// A request's answer, or the tile it asks for (to be looked up, which may wait).
    private enum Routed {
        case answer(WebResponse)
        case tile(TileAddress)
    }

    private func route(_ request: WebRequest) -> Routed {
        let query = QueryItems(request.query)
        switch check(request, query: query) {
        case .some(let refusal):
            return .answer(refusal)
        case .none where request.path.hasPrefix(TileAddress.pathPrefix) && request.path != TileAddress.pathPrefix:
            switch TileAddress.parse(request.path) {
            case .tile(let address): return .tile(address)
            case .malformed: return .answer(ChartTiles.malformed)
            }
        case .none:
            return .answer(answer(request, query: query))
        }
    }

    /// Why the request is refused before its path is looked at (body, target, token,
    /// method); nil when it is not.
    private func check(_ request: WebRequest, query: QueryItems) -> WebResponse? {
        if request.hasBody { return .text(413, "a request to loctrack serve has no body") }
        guard Self.isPrintable(request.path), Self.isPrintable(request.query) else {
            return .text(400, "malformed request target")
        }
        switch access?.check(request, query: query) ?? .allowed {
        case .allowed:
            break
        case .refused:
            return .text(401, "this server needs its token: Authorization: Bearer TOKEN, the loctrack_token cookie, or ?token=TOKEN",
                         headers: [("WWW-Authenticate", "Bearer")])
        case .redirect(let location, let cookie):
            return WebResponse(status: 303, headers: [
                ("Location", location), ("Set-Cookie", cookie), ("Cache-Control", "no-store"),
            ])
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return .text(405, "method not allowed: only GET and HEAD", headers: [("Allow", Self.allowedMethods)])
        }
        return nil
    }

    /// The answer to a checked request for anything but a tile.
    private func answer(_ request: WebRequest, query: QueryItems) -> WebResponse {
        guard let path = RequestPath.decoded(request.path) else { return .notFound }
        guard let route = APIRoute(rawValue: path) else {
            guard let asset = assets.asset(at: path) else { return .notFound }
            return Self.response(for: asset, ifNoneMatch: request.header("If-None-Match"))
        }
        switch route {
        case .events:
            return events(request, query: query)
        case .config:
            return .json(configuration)
        case .fix:
            return readings.latestFixJSON().map { .json(Array($0.utf8)) } ?? .noContent
        case .status:
            return .json(Array(readings.statusJSON().utf8))
        case .sky:
            return readings.skyJSON().map { .json(Array($0.utf8)) } ?? .noContent
        case .distance:
            return .json(Array(readings.distanceJSON().utf8))
        case .regions:
            return .json(Array(readings.regionsGeoJSON().utf8), contentType: "application/geo+json")
        case .track:
            return track(request)
        }
    }

    private func track(_ request: WebRequest) -> WebResponse {
        let parsed: TrackRequest
        do {
            parsed = try TrackRequest(query: request.query)
        } catch {
            return .text(400, String(describing: error))
        }
        let document = readings.track(parsed)
        var headers: [(name: String, value: String)] = [("Content-Type", document.contentType), ("Cache-Control", "no-store")]
        if let disposition = document.contentDisposition { headers.append(("Content-Disposition", disposition)) }
        return WebResponse(status: 200, headers: headers, body: .bytes(document.body))
    }

    /// `Last-Event-ID` (what a reconnecting browser sends) wins over `?after=` (what a page
    /// that loaded the track first asks for); neither: from the next event.
    private func events(_ request: WebRequest, query: QueryItems) -> WebResponse {
        let header = request.header("Last-Event-ID").flatMap { $0.isEmpty ? nil : $0 }
        let after = header ?? query.named("after").lazy.compactMap(\.value).first { !$0.isEmpty }
        let headers: [(name: String, value: String)] = [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store")]
        // HEAD opens no stream: it would count against --max-streams with nobody reading.
        if request.method == "HEAD" { return WebResponse(status: 200, headers: headers) }
        switch readings.openEventStream(after: after) {
        case .opened(let stream):
            return WebResponse(status: 200, headers: headers, body: .events(stream))
        case .full:
            return .text(503, "too many event streams: try again later", headers: [("Retry-After", "5")])
        }
    }

    /// An asset, or `304` when the client's copy is current (`If-None-Match`).
    private static func response(for asset: AssetCatalog.Asset, ifNoneMatch: String?) -> WebResponse {
        let validators: [(name: String, value: String)] = [("ETag", asset.entityTag), ("Cache-Control", "no-cache")]
        if let ifNoneMatch, matches(ifNoneMatch, asset.entityTag) {
            return WebResponse(status: 304, headers: validators)
        }
        return WebResponse(status: 200, headers: [("Content-Type", asset.contentType)] + validators, body: .bytes(asset.body))
    }

    /// Whether an `If-None-Match` list names `tag` (weakly, as RFC 9110 section 13.1.2 says), or is `*`.
    static func matches(_ ifNoneMatch: String, _ tag: String) -> Bool {
        ifNoneMatch.split(separator: ",").contains { candidate in
            var candidate = candidate.drop { $0 == " " || $0 == "\t" }
            while let last = candidate.last, last == " " || last == "\t" { candidate = candidate.dropLast() }
            if candidate == "*" { return true }
            if candidate.hasPrefix("W/") { candidate = candidate.dropFirst(2) }
            return candidate == tag
        }
    }

    /// Printable ASCII only: what a request target can hold, and what may go into `Location`.
    private static func isPrintable(_ text: String) -> Bool {
        text.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }
}

/// The paths answered from the live side (the others are ``AssetCatalog``'s files).
public enum APIRoute: String, CaseIterable, Sendable {
    case events = "/events"
    case config = "/api/config"
    case fix = "/api/fix"
    case status = "/api/status"
    case sky = "/api/sky"
    case distance = "/api/distance"
    case regions = "/api/regions"
    case track = "/api/track"
}

extension WebResponse {
    /// A one-line `text/plain` reason (docs/http.md, Errors).
    static func text(_ status: Int, _ line: String, headers: [(name: String, value: String)] = []) -> WebResponse {
        WebResponse(status: status,
                    headers: [("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", "no-store")] + headers,
                    body: .bytes(Array((line + "\n").utf8)))
    }

    static func json(_ body: [UInt8], contentType: String = "application/json") -> WebResponse {
        WebResponse(status: 200, headers: [("Content-Type", contentType), ("Cache-Control", "no-store")], body: .bytes(body))
    }

    static var noContent: WebResponse { WebResponse(status: 204, headers: [("Cache-Control", "no-store")]) }

    static var notFound: WebResponse { .text(404, "not found") }
}
