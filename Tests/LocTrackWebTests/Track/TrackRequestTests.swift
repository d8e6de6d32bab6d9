import LocTrack
@testable import LocTrackWeb
import Testing

@Suite("Track request: /api/track's query")
struct TrackRequestTests {
    @Test("given no query then all fixes, 5,000 points, as points")
    func defaults() throws {
        #expect(try TrackRequest(query: "") == TrackRequest(since: .start, maximumPoints: 5_000, format: .points))
        #expect(try TrackRequest(query: "since=&max=&format=") == TrackRequest())
    }

    @Test("given since, max and format when parsed then each is taken; unknown parameters are left alone")
    func allThree() throws {
        let request = try TrackRequest(query: "token=x&since=2026-11-24T08:00:00Z&max=200&format=geojson&_=17")
        #expect(request == TrackRequest(since: .time(Timestamp(seconds: TestFixes.start)), maximumPoints: 200, format: .geojson))
    }

    @Test("given since in seconds when parsed then it counts back from now", arguments: [("3600", 3600.0), ("90.5", 90.5), ("0", 0.0)])
    func secondsAgo(text: String, seconds: Double) throws {
        #expect(try TrackRequest(query: "since=" + text).since == .secondsAgo(seconds))
    }

    @Test("given RFC 3339 times, percent-encoded or not, with offsets, fractions and lowercase when parsed then each is the same instant", arguments: [
        "2026-11-24T08:00:00Z", "2026-11-24T08%3A00%3A00Z", "2026-11-24t08:00:00z", "2026-11-24T09:00:00+01:00",
        "2026-11-24T09%3A00%3A00%2B01%3A00", "2026-11-24T07:30:00-00:30", "2026-11-24 08:00:00Z", "2026-11-24T08:00:00.000Z",
    ])
    func rfc3339(text: String) throws {
        #expect(try TrackRequest(query: "since=" + text).since == .time(Timestamp(seconds: TestFixes.start)))
    }

    @Test("given a fraction and a leap second when parsed then milliseconds are kept and :60 is the next second")
    func fractionAndLeapSecond() {
        #expect(RFC3339.timestamp("2026-11-24T08:00:00.25Z") == Timestamp(seconds: TestFixes.start, nanoseconds: 250_000_000))
        #expect(RFC3339.timestamp("2016-12-31T23:59:60Z") == Timestamp(seconds: 1_483_228_800))
    }

    @Test("given the last parameter twice when parsed then the last one counts")
    func lastWins() throws {
        #expect(try TrackRequest(query: "max=10&max=20").maximumPoints == 20)
    }

    @Test("given a bad value when parsed then the reason is one line naming the parameter and the value", arguments: [
        ("max=0", "max: expected a whole number from 1 to 20000, found \"0\""),
        ("max=20001", "max: expected a whole number from 1 to 20000, found \"20001\""),
        ("max=-5", "max: expected a whole number from 1 to 20000, found \"-5\""),
        ("max=1e3", "max: expected a whole number from 1 to 20000, found \"1e3\""),
        ("format=kml", "format: expected points, geojson or gpx, found \"kml\""),
        ("format=GPX", "format: expected points, geojson or gpx, found \"GPX\""),
        ("since=yesterday", "since: expected an RFC 3339 time (2026-11-24T08:00:00Z) or seconds, found \"yesterday\""),
        ("since=2026-02-30T00:00:00Z", "since: expected an RFC 3339 time (2026-11-24T08:00:00Z) or seconds, found \"2026-02-30T00:00:00Z\""),
        ("since=2026-11-24T08:00:00", "since: expected an RFC 3339 time (2026-11-24T08:00:00Z) or seconds, found \"2026-11-24T08:00:00\""),
        ("since=1.2.3", "since: expected seconds (3600) or an RFC 3339 time, found \"1.2.3\""),
        ("since=12345678901", "since: expected seconds (3600) or an RFC 3339 time, found \"12345678901\""),
        ("since=%zz", "malformed percent-encoding in the query"),
        ("since=%4", "malformed percent-encoding in the query"),
        ("since=%ff", "the query is not UTF-8 once percent-decoded"),
        ("format=%0A", "format: expected points, geojson or gpx, found \"?\""),
    ])
    func invalid(query: String, reason: String) {
        #expect(throws: TrackRequest.Invalid(reason)) { try TrackRequest(query: query) }
    }

    @Test("given a very long bad value when refused then the reason shows its first 40 characters")
    func longValueCut() {
        let value = String(repeating: "x", count: 100)
        #expect(throws: TrackRequest.Invalid("format: expected points, geojson or gpx, found \"\(String(repeating: "x", count: 40))…\"")) {
            try TrackRequest(query: "format=" + value)
        }
    }
}
