@testable import LocTrack
import Synchronization
import Testing

/// gpsd's SKY reports, read by libgps and turned into ``SkyView``s, only when asked for.
@Suite("SKY reports", .timeLimit(.minutes(1)))
struct SkyDecodingTests {
    /// Two SKY reports of gpsd's own Garmin 10x recording: the second omits xdop, ydop,
    /// tdop and gdop, which libgps would otherwise keep from the first.
    static let full = #"{"class":"SKY","device":"/dev/pts/8","xdop":0.85,"ydop":1.20,"vdop":2.40,"tdop":1.58,"hdop":1.50,"gdop":3.21,"pdop":2.80,"nSat":10,"uSat":6,"satellites":[{"PRN":16,"el":74.0,"az":173.0,"ss":27.0,"used":true,"gnssid":0,"svid":16},{"PRN":13,"el":16.0,"az":310.0,"ss":0.0,"used":false,"gnssid":0,"svid":13},{"PRN":65,"el":8.0,"az":171.0,"ss":31.5,"used":true,"gnssid":6,"svid":1,"health":1}]}"#
    static let partial = #"{"class":"SKY","device":"/dev/pts/8","vdop":1.00,"hdop":7.20,"pdop":7.30,"satellites":[{"PRN":16,"el":74.0,"az":173.0,"ss":20.0,"used":true},{"PRN":23,"used":false}]}"#

    static func decode(_ lines: [String], reportsSatellites: Bool = true) -> [ReaderEvent] {
        let events = Mutex<[ReaderEvent]>([])
        let sink: @Sendable (ReaderEvent) -> Void = { event in events.withLock { $0.append(event) } }
        let handler = ReportHandler(
            source: .default, assembler: FixAssembler(sink: sink), reportsSatellites: reportsSatellites, sink: sink)
        var framer = LineFramer()
        for line in lines {
            framer.append(Array((line + "\n").utf8)) { text, length in handler.handle(line: text, length: length) }
        }
        return events.withLock { $0 }
    }

    static func views(_ events: [ReaderEvent]) -> [SkyView] {
        events.compactMap { if case .sky(let view) = $0 { view } else { nil } }
    }

    @Test("given a full SKY report when read then counts, DOPs and every satellite are gpsd's")
    func full() throws {
        let view = try #require(Self.views(Self.decode([Self.full])).first)
        #expect(view.device == "/dev/pts/8")
        #expect(view.seen == 10)  // gpsd's nSat, not the three listed
        #expect(view.used == 6)
        #expect(view.dilution == .init(
            horizontal: 1.5, vertical: 2.4, position: 2.8, time: 1.58, geometric: 3.21, longitude: 0.85, latitude: 1.2))
        #expect(view.satellites == [
            .init(prn: 16, constellation: .gps, satelliteID: 16, elevation: 74, azimuth: 173, signalStrength: 27, used: true),
            .init(prn: 13, constellation: .gps, satelliteID: 13, elevation: 16, azimuth: 310, signalStrength: 0, used: false),
            .init(prn: 65, constellation: .glonass, satelliteID: 1, elevation: 8, azimuth: 171, signalStrength: 31.5,
                  used: true, healthy: true),
        ])
    }

    @Test("given a SKY report without nSat, uSat and some DOPs after a full one when read then nothing is left over")
    func partialAfterFull() throws {
        let views = Self.views(Self.decode([Self.full, Self.partial]))
        let view = try #require(views.last)
        #expect(views.count == 2)
        #expect(view.seen == 2)  // counted from the list
        #expect(view.used == 1)
        #expect(view.dilution == .init(horizontal: 7.2, vertical: 1, position: 7.3))
        #expect(view.satellites.map(\.prn) == [16, 23])
        #expect(view.satellites[1].elevation == nil && view.satellites[1].constellation == nil)
    }

    @Test("given a session that did not ask for satellites when SKY arrives then it is skipped unread")
    func notAsked() {
        #expect(Self.decode([Self.full], reportsSatellites: false).isEmpty)
    }
}
