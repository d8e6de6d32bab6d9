import LocTrackFormats
import LocTrackWeb
import Testing
import LocTrackServeOptions

/// The headers every response carries (docs/http.md, Access), on every kind of response.
@Suite struct SecurityHeaderTests {
    static let policy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// Requests that give each kind of response: 200 page and API, 204, 303, 304, 400, 401, 404, 405, 413, 503, events.
    static let requests: [WebRequest] = [
        .get("/"), .get("/api/config"), .get("/api/fix"), .get("/api/sky"), .get("/events"), .get("/nothing"),
        .get("/api/track", query: "max=0"), .get("/", query: "token=s3cret-Token+/="), .get("/", query: "token=no"),
        .get("/app.js", headers: [("If-None-Match", "*")]),
        WebRequest(method: "POST", path: "/"), WebRequest(method: "GET", path: "/", hasBody: true),
        WebRequest(method: "HEAD", path: "/app.css"),
    ]

    @Test func givenAnyRequestWhenAnsweredThenTheCSPNosniffAndReferrerPolicyAreThereOnce() async {
        for token in [nil, Fixture.token] {
            let service = Fixture.service(token: token)
            for request in Self.requests + [.get("/events", headers: [("Authorization", "Bearer s3cret-Token+/=")])] {
                let response = await service.respond(to: request)
                #expect(response.values("Content-Security-Policy") == [Self.policy], "\(request.path) → \(response.status)")
                #expect(response.values("X-Content-Type-Options") == ["nosniff"])
                #expect(response.values("Referrer-Policy") == ["no-referrer"])
                #expect(response.values("Cache-Control").count == 1, "\(request.path) → \(response.status)")
            }
        }
        #expect(await Fixture.service(readings: ScriptedReadings(streamChunks: nil)).respond(to: .get("/events"))
            .values("Content-Security-Policy") == [Self.policy])
    }

    @Test func givenTilesWhenAnsweredThenImagesMayAlsoComeFromTheTileOriginAndNothingElseChanges() async throws {
        let options = ServeOptions(tiles: try TileSource(template: "https://{s}.tile.example.org:8443/{z}/{x}/{y}.png?key=k"))
        let response = await Fixture.service(options: options).respond(to: .get("/"))
        #expect(response.header("Content-Security-Policy") == Self.policy.replacing(
            "img-src 'self' data:;", with: "img-src 'self' data: https://*.tile.example.org:8443;"))
    }

    @Test func givenAPageFileOrTheAPIWhenAnsweredThenTheFileIsNoCacheAndTheAPINoStore() async {
        let service = Fixture.service(readings: ScriptedReadings(fix: "{}", sky: "{}"))
        for path in ["/", "/app.js", "/leaflet/images/layers.png"] {
            #expect(await service.respond(to: .get(path)).header("Cache-Control") == "no-cache", "\(path)")
        }
        for path in ["/api/config", "/api/fix", "/api/status", "/api/sky", "/api/regions", "/api/track", "/events", "/x"] {
            #expect(await service.respond(to: .get(path)).header("Cache-Control") == "no-store", "\(path)")
        }
    }
}
