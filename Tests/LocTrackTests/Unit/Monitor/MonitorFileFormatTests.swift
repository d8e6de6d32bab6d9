@testable import LocTrack
@testable import LocTrackMonitor
import Testing

@Suite("Monitor state file format: snapshots to bytes and back", .timeLimit(.minutes(1)))
struct MonitorFileFormatTests {
    static let path = "/state/default.monitor.json"

    static func time(_ seconds: Int64, _ nanoseconds: Int32 = 0) -> Timestamp {
        Timestamp(seconds: 1_800_000_000 + seconds, nanoseconds: nanoseconds)
    }

    /// A snapshot using every field: circle, polygon with a hole, MultiPolygon; events with
    /// and without eph; pending; both limited flags; a time finer than milliseconds.
    static func fullSnapshot() throws -> MonitorSnapshot {
        let circle = try GeofenceCondition.circle(center: GeoPoint(latitude: 52.5, longitude: 13.4), radius: 150)
        let ring = [(0.0, 0.0), (2, 0), (2, 2), (0, 0)].map { GeoPoint(unchecked: $0.1, $0.0) }
        let hole = [(0.5, 0.2), (1, 0.2), (1, 0.4), (0.5, 0.2)].map { GeoPoint(unchecked: $0.1, $0.0) }
        let holed = try GeofenceCondition.polygons([GeoPolygon(exterior: ring, holes: [hole])])
        let multi = try GeofenceCondition.polygons([GeoPolygon(exterior: ring), GeoPolygon(exterior: ring.map { GeoPoint(unchecked: -$0.latitude, $0.longitude) })])
        let fix = Fix(time: time(10, 240_000_000), mode: .twoD, latitude: 52.5001, longitude: 13.4002, horizontalError: 4.25)
        let bare = Fix(time: time(11, 123_456_789), mode: .twoD, latitude: 1, longitude: 1)
        return MonitorSnapshot(name: "default", nextSerial: 7, lastFixTime: time(11, 123_456_789), conditions: [
            MonitoredCondition(identifier: "home", serial: 2, condition: circle, state: .satisfied,
                               lastEvent: GeofenceEvent(monitor: "default", identifier: "home", state: .satisfied, fix: fix)),
            MonitoredCondition(identifier: "yard \"x\"", serial: 5, condition: holed, state: .unknown,
                               lastEvent: GeofenceEvent(monitor: "default", identifier: "yard \"x\"", state: .unknown, fix: bare, accuracyLimited: true),
                               pending: PendingChange(state: .unsatisfied, since: time(9)), accuracyLimitReported: true,
                               added: time(1)),
            MonitoredCondition(identifier: "zones", serial: 6, condition: multi, state: .unsatisfied),
        ])
    }

    @Test("given Timestamp.iso8601 when read back then milliseconds round-trip and finer fractions are cut")
    func timestampPrecision() {
        let milliseconds = Self.time(0, 240_000_000)
        #expect(Timestamp(iso8601: milliseconds.iso8601) == milliseconds)
        let fine = Self.time(0, 123_456_789)
        #expect(fine.iso8601 == "2027-01-15T08:00:00.123Z")
        #expect(Timestamp(iso8601: fine.iso8601) == Self.time(0, 123_000_000))
        // So the file writes 9 digits when it must, which Timestamp's parser reads exactly.
        #expect(MonitorFileFormat.storedTime(fine) == "2027-01-15T08:00:00.123456789Z")
        #expect(MonitorFileFormat.storedTime(Self.time(0, 5)) == "2027-01-15T08:00:00.000000005Z")
        #expect(MonitorFileFormat.storedTime(milliseconds) == "2027-01-15T08:00:00.240Z")
    }

    @Test("given a snapshot using every field when encoded and decoded then it is equal")
    func roundTrip() throws {
        let snapshot = try Self.fullSnapshot()
        let bytes = MonitorFileFormat.encode(snapshot)
        #expect(bytes.last == UInt8(ascii: "\n"))
        #expect(bytes.filter { $0 == UInt8(ascii: "\n") }.count == 1)
        #expect(try MonitorFileFormat.decode(bytes, path: Self.path) == snapshot)
    }

    @Test("given a small snapshot when encoded then the text is the documented format")
    func exactText() throws {
        let circle = try GeofenceCondition.circle(center: GeoPoint(latitude: 52.5, longitude: 13.4), radius: 150)
        let fix = Fix(time: Self.time(10, 240_000_000), mode: .twoD, latitude: 52.5, longitude: 13.4, horizontalError: 3)
        let snapshot = MonitorSnapshot(name: "default", nextSerial: 3, lastFixTime: Self.time(10, 240_000_000), conditions: [
            MonitoredCondition(identifier: "home", serial: 1, condition: circle, state: .satisfied,
                               lastEvent: GeofenceEvent(monitor: "default", identifier: "home", state: .satisfied, fix: fix),
                               pending: PendingChange(state: .unsatisfied, since: Self.time(10, 240_000_000))),
            MonitoredCondition(identifier: "far", serial: 2, condition: circle, state: .unknown, accuracyLimitReported: true,
                               added: Self.time(10, 240_000_000)),
        ])
        let text = String(decoding: MonitorFileFormat.encode(snapshot), as: UTF8.self)
        let region = #"{"type":"Point","coordinates":[13.4,52.5],"radius":150}"#
        let time = "2027-01-15T08:00:10.240Z"
        #expect(text == #"{"loctrack":"monitor","version":1,"name":"default","nextSerial":3,"lastFixTime":"\#(time)","conditions":["#
            + #"{"id":"home","serial":1,"region":\#(region),"state":"satisfied","lastEvent":{"state":"satisfied","time":"\#(time)","lat":52.5,"lon":13.4,"eph":3},"pending":{"state":"unsatisfied","since":"\#(time)"}},"#
            + #"{"id":"far","serial":2,"region":\#(region),"state":"unknown","accuracyLimitReported":true,"added":"\#(time)"}]}"# + "\n")
    }

    @Test("given an empty snapshot when encoded and decoded then it is equal, without lastFixTime")
    func emptyRoundTrip() throws {
        let empty = MonitorSnapshot(name: "x")
        #expect(String(decoding: MonitorFileFormat.encode(empty), as: UTF8.self)
                == #"{"loctrack":"monitor","version":1,"name":"x","nextSerial":1,"conditions":[]}"# + "\n")
        #expect(try MonitorFileFormat.decode(MonitorFileFormat.encode(empty), path: Self.path) == empty)
    }

    static let header = #""loctrack":"monitor","version":1,"name":"d""#
    static let region = #"{"type":"Point","coordinates":[13.4,52.5],"radius":150}"#

    static func condition(_ members: String = "") -> String {
        #"{"id":"a","serial":1,"region":\#(region),"state":"unknown"\#(members)}"#
    }

    @Test("given files that do not match the format when decoded then corruptStateFile names the member and the problem",
          arguments: [
            ("", "invalid JSON at byte 0: expected a value, found the end of the text"),
            ("[]", "expected a JSON object, found an array"),
            (#"{"loctrack":"gpsd","version":1}"#, "not a loctrack monitor state file (expected \"loctrack\":\"monitor\")"),
            (#"{"loctrack":"monitor","version":3}"#, "version 3 is not one this loctrack reads (it reads versions 1 to 2)"),
            (#"{"loctrack":"monitor","version":0}"#, "version 0 is not one this loctrack reads (it reads versions 1 to 2)"),
            (#"{\#(header),"nextSerial":2,"conditions":[\#(condition(#","title":"Home""#))]}"#,
             "conditions[0].title: unknown member in version 1"),
            (#"{"loctrack":"monitor"}"#, "expected \"version\" to be a whole number"),
            (#"{\#(header),"conditions":[]}"#, "missing member \"nextSerial\""),
            (#"{\#(header),"nextSerial":0,"conditions":[]}"#, "nextSerial: expected a whole number of at least 1, found 0"),
            (#"{\#(header),"nextSerial":2,"conditions":{}}"#, "conditions: expected an array, found an object"),
            (#"{\#(header),"nextSerial":2,"conditions":[],"extra":1}"#, "extra: unknown member in version 1"),
            (#"{\#(header),"nextSerial":2,"lastFixTime":"noon","conditions":[]}"#, "lastFixTime: expected an ISO 8601 UTC time, found \"noon\""),
            (#"{\#(header),"nextSerial":3,"conditions":[\#(condition()),\#(condition())]}"#, "conditions[1].id: \"a\" is also the id of conditions[0]"),
            (#"{\#(header),"nextSerial":1,"conditions":[\#(condition())]}"#, "nextSerial 1 is not above conditions[0].serial 1"),
            (#"{\#(header),"nextSerial":2,"conditions":[{"id":"a","serial":1,"state":"unknown"}]}"#, "conditions[0]: missing member \"region\""),
            (#"{\#(header),"nextSerial":2,"conditions":[{"id":"a","serial":1,"region":{"type":"Point","coordinates":[1,2]},"state":"unknown"}]}"#,
             "conditions[0].region: a Point is a region only with a radius: expected a positive number \"radius\" (metres) in the Feature's properties"),
            (#"{\#(header),"nextSerial":2,"conditions":[{"id":"a","serial":1,"region":\#(region),"state":"unmonitored"}]}"#,
             "conditions[0].state: expected \"unknown\", \"satisfied\" or \"unsatisfied\", found \"unmonitored\""),
            (#"{\#(header),"nextSerial":2,"conditions":[{"id":"a","serial":1.5,"region":\#(region),"state":"unknown"}]}"#,
             "conditions[0].serial: expected a whole number of at least 1, found 1.5"),
            (#"{\#(header),"nextSerial":2,"conditions":[\#(condition(#","lastEvent":{"state":"satisfied","lat":1,"lon":2}"#))]}"#,
             "conditions[0].lastEvent: missing member \"time\""),
            (#"{\#(header),"nextSerial":2,"conditions":[\#(condition(#","lastEvent":{"state":"odd"}"#))]}"#,
             "conditions[0].lastEvent.state: expected a state, found \"odd\""),
            (#"{\#(header),"nextSerial":2,"conditions":[\#(condition(#","lastEvent":{"state":"satisfied","time":"2027-01-15T08:00:10.240Z","lat":91,"lon":2}"#))]}"#,
             "conditions[0].lastEvent: the position 91.0,2.0 is out of range"),
            (#"{\#(header),"nextSerial":2,"conditions":[\#(condition(#","pending":{"state":"satisfied"}"#))]}"#,
             "conditions[0].pending: missing member \"since\""),
            (#"{\#(header),"nextSerial":2,"conditions":[\#(condition(#","accuracyLimitReported":1"#))]}"#,
             "conditions[0].accuracyLimitReported: expected true or false, found 1"),
          ])
    func rejectsMismatches(text: String, reason: String) {
        #expect(throws: GeofenceError.corruptStateFile(path: Self.path, reason: reason)) {
            try MonitorFileFormat.decode(Array(text.utf8), path: Self.path)
        }
    }
}
