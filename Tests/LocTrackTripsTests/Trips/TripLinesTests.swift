import LocTrack
import LocTrackDistance
@testable import LocTrackFormats
import LocTrackProcess
import Testing

/// The exact lines `loctrack trips` prints for a trip.
@Suite("Trip lines", .timeLimit(.minutes(1)))
struct TripLinesTests {
    static func endpoint(_ time: String, _ latitude: Double, _ longitude: Double, odometer: Double, moving: Double = 0) -> TripEndpoint {
        TripEndpoint(time: Timestamp(iso8601: time)!, latitude: latitude, longitude: longitude, odometer: odometer, movingSeconds: moving)
    }

    static let trip = TripSummary(
        start: endpoint("2026-11-23T08:14:03.250Z", 52.51629, 13.37765, odometer: 1000),
        // 1,627 s from start to end, 1,500 s of them moving (a stop of 127 s at a crossing).
        end: endpoint("2026-11-23T08:41:10.250Z", 52.5012, 13.4012, odometer: 13_345.67, moving: 1500),
        distance: 12_345.67, maxSpeed: 19.8, device: "/dev/ttyACM0")

    static let overnight = TripSummary(
        start: endpoint("2026-11-23T23:50:00.000Z", -37.7848, 175.3149, odometer: 0),
        end: endpoint("2026-11-24T01:05:30.000Z", -37.8, 175.2, odometer: 850.4, moving: 4530),
        distance: 850.4, maxSpeed: 0, device: "host \"x\", port 1")

    @Test("given a trip when written as JSON then it is one TRIP object with ISO times, metres, seconds, m/s and the endpoints")
    func json() {
        #expect(TripLines.line(Self.trip, .json) == """
            {"class":"TRIP","start":"2026-11-23T08:14:03.250Z","end":"2026-11-23T08:41:10.250Z","distance":12345.7,\
            "duration":1627.000,"movingTime":1500.000,"maxSpeed":19.800,"averageSpeed":7.588,"startLat":52.516290000,"startLon":13.377650000,\
            "endLat":52.501200000,"endLon":13.401200000,"device":"/dev/ttyACM0"}

            """)
    }

    @Test("given a trip without a device and one whose device needs escaping when written as JSON then device is left out or escaped")
    func jsonDevice() {
        var anonymous = Self.trip
        anonymous.device = nil
        #expect(!TripLines.json(anonymous).contains("device"))
        #expect(TripLines.json(Self.overnight).hasSuffix(",\"device\":\"host \\\"x\\\", port 1\"}\n"))
    }

    @Test("given trips when written as CSV then the header names the JSON members in their order and each row is CRLF-ended, RFC 4180 quoted")
    func csv() {
        #expect(TripLines.begin(.csv) == "start,end,distance,duration,movingTime,maxSpeed,averageSpeed,startLat,startLon,endLat,endLon,device\r\n")
        #expect(TripLines.line(Self.trip, .csv)
                == "2026-11-23T08:14:03.250Z,2026-11-23T08:41:10.250Z,12345.7,1627.000,1500.000,19.800,7.588,52.516290000,13.377650000,52.501200000,13.401200000,/dev/ttyACM0\r\n")
        #expect(TripLines.line(Self.overnight, .csv)
                == "2026-11-23T23:50:00.000Z,2026-11-24T01:05:30.000Z,850.4,4530.000,4530.000,0.000,0.188,-37.784800000,175.314900000,-37.800000000,175.200000000,\"host \"\"x\"\", port 1\"\r\n")
    }

    @Test("given trips when written as text then each is one line a person reads: the end's date only on another day")
    func text() {
        #expect(TripLines.line(Self.trip, .text)
                == "2026-11-23T08:14:03Z → 08:41:10Z  27 min 07 s  12.35 km  avg 27.3 km/h  max 71.3 km/h  52.51629, 13.37765 → 52.50120, 13.40120  /dev/ttyACM0\n")
        #expect(TripLines.line(Self.overnight, .text)
                == "2026-11-23T23:50:00Z → 2026-11-24T01:05:30Z  1 h 16 min  850 m  avg 0.7 km/h  max 0.0 km/h  -37.78480, 175.31490 → -37.80000, 175.20000  host \"x\", port 1\n")
    }

    @Test("given totals when the text ends then it counts the trips, their distance, the time moving and what was read")
    func totals() {
        var totals = TripTotals(points: 86_400, files: 2)
        totals.distanceInAll = 15_049.5
        #expect(TripLines.end(totals, .text) == "no trips  (15.05 km in all; 86400 points from 2 files)\n")
        totals.add(Self.trip)
        #expect(TripLines.end(totals, .text) == "1 trip  12.35 km  25 min 00 s moving  (15.05 km in all; 86400 points from 2 files)\n")
        totals.add(Self.overnight)
        totals.files = 1
        #expect(TripLines.end(totals, .text) == "2 trips  13.20 km  1 h 41 min moving  (15.05 km in all; 86400 points from 1 file)\n")
        #expect(TripLines.end(TripTotals(), .text) == "no trips  (0 points from 0 files)\n")
        #expect(TripLines.end(totals, .json).isEmpty && TripLines.end(totals, .csv).isEmpty)
        #expect(TripLines.begin(.json).isEmpty && TripLines.begin(.text).isEmpty)
    }

    @Test("given durations and distances around the units' edges when written as text then the unit changes where a person expects")
    func textUnits() {
        #expect(TripLines.duration(0) == "0 s")
        #expect(TripLines.duration(59.4) == "59 s")
        #expect(TripLines.duration(59.6) == "1 min 00 s")
        #expect(TripLines.duration(3599.4) == "59 min 59 s")
        #expect(TripLines.duration(3599.6) == "1 h 00 min")
        #expect(TripLines.duration(36_000 + 29) == "10 h 00 min")
        #expect(TripLines.distance(999.4) == "999 m")
        #expect(TripLines.distance(999.6) == "1.00 km")
        #expect(TripLines.distance(.nan) == "0 m")
    }
}
