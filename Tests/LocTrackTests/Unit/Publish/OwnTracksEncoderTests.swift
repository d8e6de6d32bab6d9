import LocTrack
@testable import LocTrackCLI
import LocTrackMQTT
import Testing
@testable import LocTrackFormats
@testable import LocTrackSinks

@Suite("OwnTracks location lines", .timeLimit(.minutes(1)))
struct OwnTracksEncoderTests {
    static let full = Fix(
        time: Timestamp(seconds: 1_795_321_503, nanoseconds: 940_000_000), mode: .threeD, status: .dgps,
        device: "/dev/ttyACM0", latitude: 52.516289912, longitude: 13.377650049, altitudeHAE: 83.6,
        altitudeMSL: 34.4, horizontalError: 9.5, verticalError: 6.5, speed: 2.5, track: 87.4, climb: -0.1)

    static func line(_ fix: Fix, tid: String = "pi") -> String {
        OutputFormat.owntracks.line(for: fix, trackerID: tid)
    }

    @Test("given a full fix when written as OwnTracks then it is a location message, field by field")
    func fullFix() {
        #expect(Self.line(Self.full) == """
            {"_type":"location","lat":52.5162899,"lon":13.3776500,"tst":1795321503,"acc":10,"alt":34,"vac":7,\
            "vel":9,"cog":87,"tid":"pi"}

            """)
    }

    @Test("given a fix with nothing but a position when written as OwnTracks then unknown values are left out, acc too")
    func sparseFix() {
        let fix = Fix(time: Timestamp(seconds: 1_000_000_000), mode: .twoD, latitude: -1.5, longitude: 2.25)
        #expect(Self.line(fix, tid: "ac") ==
            "{\"_type\":\"location\",\"lat\":-1.5000000,\"lon\":2.2500000,\"tst\":1000000000,\"tid\":\"ac\"}\n")
    }

    @Test("given error estimates when written then acc is eph rounded half away from zero, at least 1",
          arguments: [(9.5, 10), (0.2, 1), (0.5, 1), (1.49, 1), (20.9, 21), (0.0, 1)])
    func accuracy(eph: Double, acc: Int) {
        let fix = Fix(time: Timestamp(seconds: 0), mode: .twoD, latitude: 0, longitude: 0, horizontalError: eph)
        #expect(Self.line(fix).contains(",\"acc\":\(acc),"))
    }

    @Test("given speeds when written then vel is km/h rounded", arguments: [(2.5, 9), (0.0, 0), (0.14, 1), (27.78, 100)])
    func velocity(speed: Double, vel: Int) {
        let fix = Fix(time: Timestamp(seconds: 0), mode: .twoD, latitude: 0, longitude: 0, speed: speed)
        #expect(Self.line(fix).contains(",\"vel\":\(vel),"))
    }

    @Test("given courses when written then cog is whole degrees from 0 to 359", arguments: [(359.6, 0), (359.4, 359), (0.4, 0)])
    func course(track: Double, cog: Int) {
        let fix = Fix(time: Timestamp(seconds: 0), mode: .twoD, latitude: 0, longitude: 0, track: track)
        #expect(Self.line(fix).contains(",\"cog\":\(cog),"))
    }

    @Test("given a negative altitude and a fractional time when written then alt is rounded and tst truncated to the second")
    func altitudeAndTime() {
        let fix = Fix(time: Timestamp(seconds: 12, nanoseconds: 999_000_000), mode: .threeD, latitude: 0, longitude: 0,
                      altitudeMSL: -3.5, verticalError: 0.4)
        #expect(Self.line(fix) ==
            "{\"_type\":\"location\",\"lat\":0.0000000,\"lon\":0.0000000,\"tst\":12,\"alt\":-4,\"vac\":0,\"tid\":\"pi\"}\n")
    }

    @Test("given a fix written into a batch when compared with the line then the bytes are the same")
    func batchBytes() {
        var encoder = OutputFormat.owntracks.makeEncoder(trackerID: "pi")
        var bytes = OutputBytes()
        encoder.encode(Self.full, into: &bytes)
        #expect(String(decoding: bytes.bytes, as: UTF8.self) == Self.line(Self.full))
    }

    @Test("given no --tid when the encoder is made then the tid comes from the host name")
    func defaultTrackerID() {
        let tid = OwnTracksEncoder.defaultTrackerID(hostName: HostName.current())
        #expect(OutputFormat.owntracks.line(for: Self.full).hasSuffix(",\"tid\":\"\(tid)\"}\n"))
    }
}
