import LocTrack
import LocTrackProcess
import LocTrackWeb
import Testing
import LocTrackServeOptions

/// The `/api/…` rows of docs/http.md's table, against a scripted live side.
@Suite struct ApiRouteTests {
    @Test func givenNoFixYetWhenApiFixIsAskedThenItIs204WithoutBody() async {
        let response = await Fixture.service().respond(to: .get("/api/fix"))
        #expect(response.status == 204)
        #expect(response.bytes == [])
        #expect(response.header("Content-Type") == nil)
        #expect(response.header("Cache-Control") == "no-store")
    }

    @Test func givenAFixWhenApiFixIsAskedThenItIsThatLineAsJSON() async {
        let line = #"{"class":"TPV","mode":3,"lat":47.376621,"lon":8.541733}"#
        let response = await Fixture.service(readings: ScriptedReadings(fix: line)).respond(to: .get("/api/fix"))
        #expect(response.status == 200)
        #expect(response.text == line)
        #expect(response.header("Content-Type") == "application/json")
        #expect(response.header("Cache-Control") == "no-store")
    }

    @Test func givenAStatusWhenApiStatusIsAskedThenItIsThatObject() async {
        let status = #"{"gpsd":"unreachable","receiver":"waiting","message":"gpsd unreachable"}"#
        let response = await Fixture.service(readings: ScriptedReadings(status: status)).respond(to: .get("/api/status"))
        #expect(response.status == 200)
        #expect(response.text == status)
        #expect(response.header("Content-Type") == "application/json")
    }

    @Test func givenNoSkyYetWhenApiSkyIsAskedThenItIs204AndAfterOneItIsThatObject() async {
        #expect(await Fixture.service().respond(to: .get("/api/sky")).status == 204)
        let sky = #"{"class":"SKY","nSat":12,"uSat":8,"satellites":[]}"#
        let response = await Fixture.service(readings: ScriptedReadings(sky: sky)).respond(to: .get("/api/sky"))
        #expect(response.status == 200)
        #expect(response.text == sky)
        #expect(response.header("Content-Type") == "application/json")
    }

    @Test func givenADistanceWhenApiDistanceIsAskedThenItIsThatObject() async {
        let distance = #"{"day":"2026-11-24","today":2212.4,"moving":true,"time":"2026-11-24T10:00:01.000Z","trip":null}"#
        let response = await Fixture.service(readings: ScriptedReadings(distance: distance)).respond(to: .get("/api/distance"))
        #expect(response.status == 200)
        #expect(response.text == distance)
        #expect(response.header("Content-Type") == "application/json")
        #expect(response.header("Cache-Control") == "no-store")
    }

    @Test func givenRegionsWhenApiRegionsIsAskedThenTheyAreGeoJSON() async {
        let regions = #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"home"}]}"#
        let response = await Fixture.service(readings: ScriptedReadings(regions: regions)).respond(to: .get("/api/regions"))
        #expect(response.status == 200)
        #expect(response.text == regions)
        #expect(response.header("Content-Type") == "application/geo+json")
    }

    @Test func givenDefaultOptionsWhenApiConfigIsAskedThenTilesAndMonitorAreNull() async {
        let response = await Fixture.service().respond(to: .get("/api/config"))
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/json")
        #expect(response.text == #"{"version":"\#(LocTrackVersion.number)","staleSeconds":3,"monitor":null,"tiles":null,"layers":[]}"#)
    }

    @Test func givenTilesMonitorAndStaleWhenApiConfigIsAskedThenItSaysThemEscaped() async throws {
        let options = ServeOptions(
            monitor: "home",
            tiles: try TileSource(template: "https://tile.example.org/{z}/{x}/{y}.png", attribution: #"© "OSM" contributors"#),
            staleSeconds: 2.5)
        let response = await Fixture.service(options: options).respond(to: .get("/api/config"))
        #expect(response.text == #"{"version":"\#(LocTrackVersion.number)","staleSeconds":2.5,"monitor":"home","#
            + #""tiles":{"url":"https://tile.example.org/{z}/{x}/{y}.png","attribution":"© \"OSM\" contributors"},"layers":[]}"#)
    }

    @Test func givenATrackQueryWhenApiTrackIsAskedThenTheLiveSideGetsItParsedAndItsDocumentIsTheBody() async throws {
        let gpx = TrackDocument(contentType: "application/gpx+xml", contentDisposition: #"attachment; filename="track.gpx""#,
                                body: Array("<gpx/>".utf8))
        let readings = ScriptedReadings(document: gpx)
        let response = await Fixture.service(readings: readings)
            .respond(to: .get("/api/track", query: "since=2026-11-24T08:00:00Z&format=gpx&max=100"))
        #expect(response.status == 200)
        #expect(response.text == "<gpx/>")
        #expect(response.header("Content-Type") == "application/gpx+xml")
        #expect(response.header("Content-Disposition") == #"attachment; filename="track.gpx""#)
        #expect(response.header("Cache-Control") == "no-store")
        let since = try #require(Timestamp(iso8601: "2026-11-24T08:00:00Z"))
        #expect(readings.trackRequests == [TrackRequest(since: .time(since), maximumPoints: 100, format: .gpx)])
    }

    @Test func givenNoQueryWhenApiTrackIsAskedThenTheDefaultsAreAsked() async {
        let readings = ScriptedReadings()
        let response = await Fixture.service(readings: readings).respond(to: .get("/api/track"))
        #expect(response.status == 200)
        #expect(response.header("Content-Disposition") == nil)
        #expect(readings.trackRequests == [TrackRequest()])
    }

    @Test("given a bad since, max or format when /api/track is asked then it is 400 with one text line and the live side is not asked",
          arguments: ["since=yesterday", "max=0", "max=20001", "max=ten", "format=kml", "since=%zz"])
    func badTrackQuery(query: String) async throws {
        let readings = ScriptedReadings()
        let response = await Fixture.service(readings: readings).respond(to: .get("/api/track", query: query))
        #expect(response.status == 400)
        #expect(response.header("Content-Type") == "text/plain; charset=utf-8")
        let text = try #require(response.text)
        #expect(text.hasSuffix("\n") && text.dropLast().allSatisfy { $0 != "\n" } && text.count > 1)
        #expect(readings.trackRequests.isEmpty)
    }
}
