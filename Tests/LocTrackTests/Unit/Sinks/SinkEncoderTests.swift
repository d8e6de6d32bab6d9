import Foundation
import LocTrack
import LocTrackDistance
import LocTrackMonitor
import Synchronization
@testable import LocTrackFormats
@testable import LocTrackSinks
import Testing

/// What each sink's encoder makes of a batch: records for stdout and track files, one
/// message per record for a broker, monitor lines framed for the track writer.
@Suite("Each sink's encoder", .timeLimit(.minutes(1)))
struct SinkEncoderTests {
    typealias F = GeofenceFixtures

    static let batch: SinkBatch = .gpsd(GPSDBatch([
        .fix(F.fix(north: 0, eph: 3, second: 0)),
        .status(.fixLost(device: nil)),
        .fix(F.fix(north: 10, eph: 80, second: 1)),
        .fix(F.fix(north: 20, eph: nil, second: 2)),
    ]))

    @Test("given fixes and a status when encoded as JSON lines then one line per fix, in order")
    func linesForStandardOutput() {
        var encoder = FixRecordEncoder(JSONLinesEncoder())
        var output = OutputBytes()
        #expect(encoder.encode(Self.batch, into: &output) == 3)
        let lines = String(decoding: output.bytes, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0.hasPrefix(#"{"class":"TPV""#) })
        #expect(lines[0].contains(#""eph":3"#))
    }

    @Test("given a batch measured for distance when encoded as JSON lines then each fix carries its odometer and each trip follows the fix that decided it")
    func odometerAndTripsInOrder() throws {
        let first = F.fix(north: 0, eph: 3, second: 0), second = F.fix(north: 10, eph: 3, second: 1)
        let start = TripEndpoint(time: first.time, latitude: first.latitude, longitude: first.longitude, odometer: 1000)
        let end = TripEndpoint(time: second.time, latitude: second.latitude, longitude: second.longitude, odometer: 1010.5)
        let batch = GPSDBatch(
            [.fix(first), .status(.fixLost(device: nil)), .fix(second)],
            odometer: [
                OdometerReading(metres: 1000, moving: true), OdometerReading(metres: 1000, moving: true),
                OdometerReading(metres: 1010.5, moving: false),
            ],
            trips: [
                TripMark(afterEvent: -1, event: .started(start, device: nil)),
                TripMark(afterEvent: 2, event: .ended(TripSummary(start: start, end: end, distance: 10.5, maxSpeed: 12))),
            ])
        var plain = FixRecordEncoder(JSONLinesEncoder())
        var plainOutput = OutputBytes()
        _ = plain.encode(.gpsd(batch), into: &plainOutput)
        let plainFixLines = String(decoding: plainOutput.bytes, as: UTF8.self).split(separator: "\n").filter { $0.contains("TPV") }
        #expect(plainFixLines.count == 2 && plainFixLines.allSatisfy { !$0.contains("odometer") }, "no --odometer: fix lines as before")
        var encoder = FixRecordEncoder(JSONLinesEncoder(), writesOdometer: true)
        var output = OutputBytes()
        #expect(encoder.encode(.gpsd(batch), into: &output) == 4)
        let lines = String(decoding: output.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix(#"{"class":"TRIP","state":"start","start":"\#(first.time.iso8601)","startLat":"#))
        #expect(lines[0].hasSuffix(#","odometer":1000.0}"#))
        #expect(lines[1].hasSuffix(#","stationary":false,"odometer":1000.000,"moving":true}"#))
        #expect(lines[2].contains(#""odometer":1010.5"#) && lines[2].hasSuffix(#""moving":false}"#))
        let ended = try JSONSerialization.jsonObject(with: Data(lines[3].utf8)) as? [String: Any]
        #expect(ended?["state"] as? String == "end")
        #expect(ended?["distance"] as? Double == 10.5)
        #expect(ended?["duration"] as? Double == 1)
        #expect(ended?["averageSpeed"] as? Double == 10.5)
        #expect(ended?["maxSpeed"] as? Double == 12)
        #expect(ended?["end"] as? String == second.time.iso8601)
        var text = FixRecordEncoder(TextEncoder(), writesOdometer: true)
        var words = OutputBytes()
        _ = text.encode(.gpsd(batch), into: &words)
        let textLines = String(decoding: words.bytes, as: UTF8.self).split(separator: "\n")
        #expect(textLines[0].hasSuffix("trip started at \(TripLines.position(start))"))
        #expect(textLines[1].hasSuffix("odo 1.000 km moving"))
        #expect(textLines[3].contains("trip ended: ") && textLines[3].contains("avg 37.8 km/h  max 43.2 km/h"))
        #expect(ended?["odometer"] as? Double == 1010.5)
    }

    @Test("given a broker's accuracy limit when encoded as messages then one message per accepted fix, without a line end")
    func messagesForABroker() {
        var encoder = FixRecordEncoder(JSONLinesEncoder(), accuracyLimit: 50)
        let messages = encoder.messages(Self.batch)
        #expect(messages.count == 1, "eph 80 and no eph are over the limit")
        #expect(messages[0].last == UInt8(ascii: "}"))
        #expect(String(decoding: messages[0], as: UTF8.self) == JSONLine.format(F.fix(north: 0, eph: 3, second: 0)).dropLast())
    }

    @Test("given a fix lost between fixes when encoded as GPX then the track breaks into two segments")
    func statusBreaksTheTrack() {
        var encoder = FixRecordEncoder(GPXEncoder())
        var output = OutputBytes()
        output.append(encoder.begin())
        _ = encoder.encode(Self.batch, into: &output)
        output.append(encoder.end())
        let document = String(decoding: output.bytes, as: UTF8.self)
        #expect(document.components(separatedBy: "<trkseg>").count - 1 == 2)
        #expect(document.components(separatedBy: "<trkpt ").count - 1 == 3)
        #expect(document.hasSuffix("</gpx>\n"))
    }

    @Test("given monitor events when encoded for stdout and for a track file then the same line, framed for the writer")
    func monitorLines() throws {
        let event = GeofenceEvent(
            monitor: "default", identifier: "home", state: .satisfied, previousState: .unsatisfied,
            fix: F.fix(north: 0, second: 5), accuracyLimited: false)
        var plain = MonitorEventEncoder(format: .json, framed: false)
        var framed = MonitorEventEncoder(format: .json, framed: true)
        var line = OutputBytes()
        var frames = OutputBytes()
        let items: SinkBatch = .monitor([MonitorEventItem(event: event)])
        #expect(plain.encode(items, into: &line) == 1)
        #expect(framed.encode(items, into: &frames) == 1)
        #expect(String(decoding: line.bytes, as: UTF8.self) == GeofenceEventLine.json(event))
        let decoded = RecordFrame.decode(frames.bytes[...])
        #expect(decoded.frames.count == 1)
        #expect(decoded.frames[0].seconds == F.start.seconds + 5)
        #expect(Array(decoded.frames[0].payload) == line.bytes)
        // gpsd's events and region states are not a monitor line's.
        var none = OutputBytes()
        #expect(plain.encode(Self.batch, into: &none) == 0)
        #expect(plain.encode(.regions(["home": RegionPresence(name: "Home", inside: true)]), into: &none) == 0)
        #expect(none.count == 0)
    }

    @Test("given OwnTracks without a context when encoded then no line: a transition needs its region's details")
    func ownTracksNeedsItsContext() {
        let event = GeofenceEvent(
            monitor: "default", identifier: "home", state: .satisfied, previousState: .unsatisfied,
            fix: F.fix(north: 0, second: 5), accuracyLimited: false)
        var encoder = MonitorEventEncoder(format: .owntracks, framed: false)
        var output = OutputBytes()
        #expect(encoder.encode(.monitor([MonitorEventItem(event: event)]), into: &output) == 0)
        let context = OwnTracksTransitionContext(regionAdded: 1_700_000_000, title: "Home", lastFix: nil, trackerID: "pi")
        #expect(encoder.encode(.monitor([MonitorEventItem(event: event, ownTracks: context)]), into: &output) == 1)
        #expect(String(decoding: output.bytes, as: UTF8.self).contains(#""event":"enter","desc":"Home""#))
    }
}
