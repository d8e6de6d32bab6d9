import LocTrack
import LocTrackDistance
import LocTrackFormats
@testable import LocTrackWeb
import Testing

/// ``LiveHub`` from the events a session delivers to what the routes read and what the
/// event streams carry. The clocks are set by hand.
@Suite("Live hub: fix, sky, status, track and events", .timeLimit(.minutes(1)))
struct LiveHubTests {
    let clock = ManualClock()

    func hub(maxStreams: Int = 64, regions: LiveRegions? = nil, recorded: RecordedTrack? = nil, trackCapacity: Int = 1000) -> LiveHub {
        LiveHub(
            limits: .init(maxStreams: maxStreams), regions: regions, recordedTrack: recorded, trackCapacity: trackCapacity,
            clock: clock.liveClock, run: "abc")
    }

    static func line(_ second: Int64) -> String {
        "{\"class\":\"TPV\",\"device\":\"/dev/ttyACM0\",\"mode\":3,\"time\":\"\(TestFixes.time(second))\",\"lat\":47.000000000,"
            + "\"lon\":8.000000000,\"altHAE\":500.0000,\"altMSL\":452.5000,\"speed\":1.250,\"eph\":5.000,\"stationary\":false}"
    }

    /// Everything a stream opened after `after` has waiting, as text.
    func waiting(_ hub: LiveHub, after: String) async throws -> String {
        let stream = try #require(hub.openEventStream(after: after).stream)
        defer { stream.cancel() }
        return try #require(await stream.nextText())
    }

    @Test("given no events then there is no fix or SKY, the status is connecting and waiting, and no regions")
    func initially() {
        let hub = hub()
        #expect(hub.latestFixJSON() == nil)
        #expect(hub.skyJSON() == nil)
        #expect(hub.statusJSON() == "{\"gpsd\":\"connecting\",\"receiver\":\"waiting\",\"message\":\"connecting to gpsd\"}")
        #expect(hub.regionsGeoJSON() == "{\"type\":\"FeatureCollection\",\"features\":[]}")
    }

    @Test("given a fix when ingested then /api/fix is stream's JSON line without its newline, and the fix event carries the same")
    func fixLine() async throws {
        let hub = hub()
        hub.ingest(.status(.connected(.default, release: "3.25")))
        hub.ingest(.fix(TestFixes.fix(second: 1)))
        #expect(hub.latestFixJSON() == Self.line(1))
        #expect(hub.latestFixJSON().map { $0 + "\n" } == JSONLine.format(TestFixes.fix(second: 1)))
        let events = try await waiting(hub, after: "abc-1")
        #expect(events == "id: abc-2\nevent: fix\ndata: \(Self.line(1))\n\n"
            + "id: abc-3\nevent: status\ndata: {\"gpsd\":\"connected\",\"release\":\"3.25\",\"device\":\"/dev/ttyACM0\","
            + "\"receiver\":\"fix\",\"message\":\"connected to gpsd 3.25 at localhost:2947\",\"lastFix\":\"\(TestFixes.time(1))\"}\n\n")
    }

    @Test("given fixes from one device when more come then only the first changes the status: one status event")
    func statusOnlyOnChange() async throws {
        let hub = hub()
        for second in 1...3 { hub.ingest(.fix(TestFixes.fix(second: Int64(second)))) }
        hub.ingest(.status(.skippedReport(reason: "bad", excerpt: "{")))
        let events = try await waiting(hub, after: "abc-0")
        #expect(events.components(of: "event: status") == 1)
        #expect(events.components(of: "event: fix") == 3)
    }

    @Test("given the statuses of an outage when ingested then /api/status follows gpsd and the receiver, each change an event")
    func statuses() async throws {
        let hub = hub()
        hub.ingest(.status(.connected(.default, release: "3.22")))
        hub.ingest(.fix(TestFixes.fix(second: 1)))
        hub.ingest(.status(.noFixes(seconds: 5)))
        #expect(hub.statusJSON().contains("\"receiver\":\"no fix\",\"message\":\"no fix from gpsd for 5 s"))
        hub.ingest(.status(.deviceLost("/dev/ttyUSB0")))
        #expect(hub.statusJSON().hasPrefix("{\"gpsd\":\"connected\",\"release\":\"3.22\",\"device\":\"/dev/ttyUSB0\",\"receiver\":\"lost\""))
        hub.ingest(.status(.waiting(LocTrackError(.connectionLost, source: .default), retryIn: .seconds(1))))
        #expect(hub.statusJSON().hasPrefix("{\"gpsd\":\"unreachable\",\"device\":\"/dev/ttyUSB0\",\"receiver\":\"lost\",\"message\":\""))
        hub.ingest(.status(.connected(.default, release: "3.22")))
        hub.ingest(.status(.fixesResumed))
        #expect(hub.statusJSON().hasPrefix("{\"gpsd\":\"connected\",\"release\":\"3.22\",\"device\":\"/dev/ttyUSB0\",\"receiver\":\"fix\""))
        let events = try await waiting(hub, after: "abc-0")
        // connected, fix (receiver), no fixes, lost, unreachable, connected, resumed: 7 changes.
        #expect(events.components(of: "event: status") == 7)
    }

    @Test("given a fix that arrived 400 ms ago then /api/status has its time and an age of 0.4 s, which no event carries")
    func lastFixAge() async throws {
        let hub = hub()
        hub.ingest(.fix(TestFixes.fix(second: 1)))
        clock.advance(milliseconds: 400)
        #expect(hub.statusJSON().hasSuffix("\"lastFix\":\"\(TestFixes.time(1))\",\"lastFixAge\":0.400}"))
        clock.advance(milliseconds: 2_600)
        #expect(hub.statusJSON().hasSuffix("\"lastFixAge\":3.000}"))
        #expect(try await !waiting(hub, after: "abc-0").contains("lastFixAge"))
    }

    @Test("given a SKY report when ingested then /api/sky and the sky event have gpsd's names, absent values left out")
    func sky() async throws {
        let hub = hub()
        let sky = SkyView(
            device: "/dev/ttyACM0", time: Timestamp(seconds: TestFixes.start + 1), seen: 12, used: 8,
            dilution: .init(horizontal: 0.9, vertical: 1.3, position: 1.6, time: 1.0, geometric: 1.9),
            satellites: [
                .init(prn: 5, constellation: .gps, satelliteID: 5, elevation: 42, azimuth: 118, signalStrength: 38, used: true, healthy: true),
                .init(prn: 70, used: false),
            ])
        hub.ingest(.sky(sky))
        let expected = "{\"class\":\"SKY\",\"device\":\"/dev/ttyACM0\",\"time\":\"\(TestFixes.time(1))\",\"nSat\":12,\"uSat\":8,"
            + "\"hdop\":0.90,\"vdop\":1.30,\"pdop\":1.60,\"tdop\":1.00,\"gdop\":1.90,\"satellites\":["
            + "{\"PRN\":5,\"gnssid\":0,\"svid\":5,\"el\":42.0,\"az\":118.0,\"ss\":38.0,\"used\":true,\"health\":1},"
            + "{\"PRN\":70,\"used\":false}]}"
        #expect(hub.skyJSON() == expected)
        #expect(try await waiting(hub, after: "abc-0") == "id: abc-1\nevent: sky\ndata: \(expected)\n\n")
    }

    @Test("given fixes and other events when the track is asked for then lastEventId is the latest event, and after it come exactly the later fixes")
    func trackAndEventsMeet() async throws {
        let hub = hub()
        hub.ingest(.fix(TestFixes.fix(second: 1)))
        hub.ingest(.fix(TestFixes.fix(second: 2)))
        hub.ingest(.sky(SkyView(seen: 1, used: 1)))
        let body = String(decoding: hub.track(TrackRequest()).body, as: UTF8.self)
        #expect(body.hasPrefix("{\"lastEventId\":\"abc-4\",\"total\":2,\"points\":["))
        hub.ingest(.fix(TestFixes.fix(second: 3)))
        let events = try await waiting(hub, after: "abc-4")
        #expect(events == "id: abc-5\nevent: fix\ndata: \(Self.line(3))\n\n")
    }

    @Test("given recorded fixes and live ones when the track is asked for then the recorded come first and a live fix they hold is not repeated")
    func recordedBeforeLive() {
        let recorded = RecordedTrack(points: [1, 2, 3].map { PackedTrackPoint(TestFixes.fix(second: $0)) })
        let hub = hub(recorded: recorded)
        hub.ingest(.fix(TestFixes.fix(second: 3)))
        hub.ingest(.fix(TestFixes.fix(second: 4)))
        let body = String(decoding: hub.track(TrackRequest()).body, as: UTF8.self)
        let times = (Int64(1)...4).map { "[\((TestFixes.start + $0) * 1000),47.0000000,8.0000000,5.000]" }
        #expect(body == "{\"lastEventId\":\"abc-3\",\"total\":4,\"points\":[\(times.joined(separator: ","))]}")
    }

    @Test("given fixes over 10 s when since=3 seconds is asked 1 s after the last then the fixes of the last 3 s by loctrack's clock come")
    func sinceSeconds() throws {
        let hub = hub()
        for second in 1...10 { hub.ingest(.fix(TestFixes.fix(second: Int64(second)))) }
        clock.advance(milliseconds: 1_000)
        let body = String(decoding: hub.track(try TrackRequest(query: "since=3")).body, as: UTF8.self)
        #expect(body.hasPrefix("{\"lastEventId\":\"abc-11\",\"total\":3,\"points\":[[\((TestFixes.start + 8) * 1000),"))
    }

    @Test("given 10 fixes when the track is asked for with max=4 then 4 points come, the first and the last among them, total 10")
    func thinned() throws {
        let hub = hub()
        for second in Int64(1)...10 { hub.ingest(.fix(TestFixes.fix(second: second, north: Double(second % 3)))) }
        let body = String(decoding: hub.track(try TrackRequest(query: "max=4")).body, as: UTF8.self)
        #expect(body.hasPrefix("{\"lastEventId\":\"abc-11\",\"total\":10,\"points\":[[\((TestFixes.start + 1) * 1000),"))
        #expect(body.hasSuffix("[\((TestFixes.start + 10) * 1000),47.0000100,8.0000000,5.000]]}"))
        #expect(body.components(of: "],[") == 3)
    }

    @Test("given fixes when the track is downloaded as GPX or GeoJSON then the type and the file name say so")
    func downloads() {
        let hub = hub()
        hub.ingest(.fix(TestFixes.fix(second: 1)))
        let gpx = hub.track(TrackRequest(format: .gpx))
        #expect(gpx.contentType == "application/gpx+xml")
        #expect(gpx.contentDisposition == "attachment; filename=\"track.gpx\"")
        let geojson = hub.track(TrackRequest(format: .geojson))
        #expect(geojson.contentType == "application/geo+json")
        #expect(geojson.contentDisposition == "attachment; filename=\"track.geojson\"")
        #expect(hub.track(TrackRequest()).contentType == "application/json")
    }

    @Test("given an outage between two fixes when downloaded as GPX then the second starts a new segment")
    func outageBreaksSegment() {
        let hub = hub()
        hub.ingest(.fix(TestFixes.fix(second: 1)))
        hub.ingest(.status(.fixLost(device: nil)))
        hub.ingest(.fix(TestFixes.fix(second: 2)))
        let gpx = String(decoding: hub.track(TrackRequest(format: .gpx)).body, as: UTF8.self)
        #expect(gpx.components(of: "<trkseg>") == 2)
    }

    /// A fix `second` s after the start, driving east at 10 m/s from 47°N 8°E (`east` metres).
    static func driving(_ second: Int64, east: Double) -> Fix {
        Fix(time: Timestamp(seconds: TestFixes.start + second), mode: .threeD, device: "/dev/ttyACM0", latitude: 47,
            longitude: 8 + east / 75_834.8, altitudeHAE: 500, altitudeMSL: 452.5, horizontalError: 5, speed: 10)
    }

    @Test("given a stop, a 30 s drive and a stop when ingested then distance events follow their fixes, none for a parked fix, and /api/distance is the last one's data")
    func distanceEvents() async throws {
        let hub = hub()
        #expect(hub.distanceJSON() == #"{"today":0.0,"moving":false,"trip":null}"#)
        for second in Int64(0)..<10 { hub.ingest(.fix(TestFixes.fix(second: second, north: Double(second % 2)))) }
        #expect(hub.distanceJSON().hasPrefix(#"{"day":"2026-11-24","today":0.0,"moving":false,"time":""#))
        let parked = try await waiting(hub, after: "abc-0")
        #expect(parked.components(of: "event: distance") == 0)
        for second in Int64(10)..<40 { hub.ingest(.fix(Self.driving(second, east: Double(second - 10) * 10))) }
        let events = try await waiting(hub, after: "abc-0")
        let names = events.split(separator: "\n").filter { $0.hasPrefix("event: ") }.map { $0.dropFirst(7) }
        // One per fix that drove a metre, but for the first 100 m: they wait for the speed
        // check's first verdict (docs/distance.md).
        #expect(names.filter { $0 == "distance" }.count >= 18, "one per fix that drove a metre: \(names.count)")
        // Each distance event right after its fix's (and the first fix's status) event.
        for (index, name) in names.enumerated() where name == "distance" {
            #expect(names[index - 1] == "fix" || names[index - 1] == "status")
        }
        let last = try #require(events.split(separator: "\n").last { $0.hasPrefix("data: {\"day\"") })
        #expect(String(last.dropFirst(6)) == hub.distanceJSON())
        #expect(hub.distanceJSON().contains(#""moving":true"#))
        #expect(hub.distanceJSON().contains(#","trip":{"start":""#))
    }

    @Test("given a recorded drive when the hub starts then /api/distance counts it, and a live fix it holds adds nothing")
    func recordedDistance() throws {
        var distance = LiveDistance()
        for second in Int64(0)..<30 {
            distance.takeRecorded(
                TrackPoint(Self.driving(second, east: Double(second) * 10)), utcOffset: { _ in 0 })
        }
        let hub = hub(recorded: RecordedTrack(points: [], distance: distance))
        let before = hub.distanceJSON()
        #expect(before.contains(#""time":"\#(TestFixes.time(29))""#))
        hub.ingest(.fix(Self.driving(29, east: 290)))
        #expect(hub.distanceJSON() == before)
        hub.ingest(.fix(Self.driving(30, east: 300)))
        #expect(hub.distanceJSON() != before)
    }

    @Test("given a stream open when the hub finishes then the stream ends")
    func finish() async throws {
        let hub = hub()
        let stream = try #require(hub.openEventStream(after: nil).stream)
        hub.finish()
        #expect(await stream.nextText() == nil)
    }

    @Test("given one stream allowed when a second is opened then it is .full")
    func maxStreams() {
        let hub = hub(maxStreams: 1)
        #expect(hub.openEventStream(after: nil).stream != nil)
        #expect(hub.openEventStream(after: nil).stream == nil)
    }

    @Test("given a sequence of events when run then each is ingested in order and run returns at its end")
    func run() async throws {
        let hub = hub()
        let events: [GPSDEvent] = [.status(.connected(.default, release: nil)), .fix(TestFixes.fix(second: 1)), .fix(TestFixes.fix(second: 2))]
        try await hub.run(events: ScriptedEvents(events: events))
        #expect(hub.latestFixJSON() == Self.line(2))
        #expect(String(decoding: hub.track(TrackRequest()).body, as: UTF8.self).hasPrefix("{\"lastEventId\":\"abc-4\",\"total\":2,"))
    }

    @Test("given a sequence that fails when run then run throws its error after ingesting what came before")
    func runThrows() async {
        let hub = hub()
        let failing = ScriptedEvents(events: [.fix(TestFixes.fix(second: 1))], failure: LocTrackError(.connectionLost, source: .default))
        await #expect(throws: LocTrackError.self) { try await hub.run(events: failing) }
        #expect(hub.latestFixJSON() == Self.line(1))
    }
}

/// A session's events from a list, then an end or an error.
struct ScriptedEvents: AsyncSequence {
    typealias Element = GPSDEvent
    typealias Failure = LocTrackError

    let events: [GPSDEvent]
    var failure: LocTrackError?

    func makeAsyncIterator() -> Iterator { Iterator(events: events, failure: failure) }

    struct Iterator: AsyncIteratorProtocol {
        var events: [GPSDEvent]
        var failure: LocTrackError?
        var index = 0

        mutating func next() async throws(LocTrackError) -> GPSDEvent? {
            if index < events.count {
                defer { index += 1 }
                return events[index]
            }
            if let failure {
                self.failure = nil
                throw failure
            }
            return nil
        }
    }
}

extension String {
    /// How often `part` occurs.
    func components(of part: String) -> Int {
        var count = 0
        var rest = self[...]
        while let range = rest.firstRange(of: part) {
            count += 1
            rest = rest[range.upperBound...]
        }
        return count
    }
}
