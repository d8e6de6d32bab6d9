import LocTrack
@testable import LocTrackCLI
import Glibc
import Testing
@testable import LocTrackFormats
@testable import LocTrackSinks

@Suite("Output lines", .timeLimit(.minutes(1)))
struct OutputFormatTests {
    static let full = Fix(
        time: Timestamp(seconds: 1_795_321_503, nanoseconds: 240_000_000), mode: .threeD, status: .dgps,
        device: "/dev/ttyACM0", latitude: -37.784788333, longitude: 175.314896667, altitudeHAE: 83.6,
        altitudeMSL: 59.9, horizontalError: 20.9, longitudeError: 9.484, latitudeError: 12.791,
        verticalError: 34.5, timeError: 0.005, sphericalError: 34.2, speed: 0.355, track: 181.39,
        magneticTrack: 201.932, magneticVariation: 20.5, climb: -0.1, speedError: 25.58, climbError: 69,
        geoidSeparation: 23.7, leapSeconds: 18)

    @Test("given a full fix when written as JSON then it is gpsd's TPV, field for field")
    func fullJSON() {
        #expect(OutputFormat.json.line(for: Self.full) == """
            {"class":"TPV","device":"/dev/ttyACM0","status":2,"mode":3,"time":"2026-11-22T04:25:03.240Z",\
            "leapseconds":18,"ept":0.005,"lat":-37.784788333,"lon":175.314896667,"altHAE":83.6000,\
            "altMSL":59.9000,"epx":9.484,"epy":12.791,"epv":34.500,"track":181.3900,"magtrack":201.9320,\
            "magvar":20.5,"speed":0.355,"climb":-0.100,"eps":25.58,"epc":69.00,"geoidSep":23.700,\
            "eph":20.900,"sep":34.200,"stationary":false}

            """)
    }

    @Test("given an RTK fix with its baseline, velocity and DGPS age and station when written as JSON then they are in gpsd 3.25's places and digits")
    func rtkJSON() {
        let fix = Fix(
            time: Timestamp(seconds: 1_795_321_503), mode: .threeD, status: .rtkFixed, latitude: 1.5, longitude: -2.25,
            horizontalError: 0.014, velocityNED: Fix.VelocityNED(north: 0.25, east: -0.5, down: 0),
            relativePosition: Fix.RelativePosition(north: -1234.5678, east: 56.78, down: 0.1254, heading: 92.5, length: 1236.1),
            dgpsAge: 1.25, dgpsStation: 136)
        #expect(OutputFormat.json.line(for: fix) == """
            {"class":"TPV","status":3,"mode":3,"time":"2026-11-22T04:25:03.000Z","lat":1.500000000,"lon":-2.250000000,\
            "relN":-1234.568,"relE":56.780,"relD":0.125,"relH":92.500,"relL":1236.100,\
            "velN":0.250,"velE":-0.500,"velD":0.000,"eph":0.014,"dgpsAge":1.2,"dgpsSta":136,"stationary":false}

            """)
    }

    @Test("given a 2D fix with nothing but a position when written as JSON then unknown values are left out")
    func minimalJSON() {
        let fix = Fix(time: Timestamp(seconds: 0), mode: .twoD, latitude: 1.5, longitude: -2.25)
        #expect(OutputFormat.json.line(for: fix) ==
            "{\"class\":\"TPV\",\"mode\":2,\"time\":\"1970-01-01T00:00:00.000Z\",\"lat\":1.500000000,\"lon\":-2.250000000,\"stationary\":false}\n")
    }

    @Test("given a device path with a quote when written as JSON then it is escaped")
    func escapedDevice() {
        let fix = Fix(time: Timestamp(seconds: 0), mode: .twoD, device: "/dev/a\"b", latitude: 0, longitude: 0)
        #expect(OutputFormat.json.line(for: fix).contains("\"device\":\"/dev/a\\\"b\""))
    }

    @Test("given a full fix when written as text then it is one readable line")
    func text() {
        #expect(OutputFormat.text.line(for: Self.full) ==
            "2026-11-22T04:25:03.240Z  3D DGPS  -37.7847883, 175.3148967  ±20.9 m  alt 59.9 m  0.4 m/s 181°  /dev/ttyACM0\n")
    }

    @Test("given a terminal or a pipe when no format is asked then text or JSON is chosen")
    func defaults() {
        #expect(OutputFormat.default(stdoutIsTerminal: true) == .text)
        #expect(OutputFormat.default(stdoutIsTerminal: false) == .json)
    }

    @Test("given accuracy bars when a fix is checked then eph decides and a missing eph fails")
    func accuracyBar() {
        #expect(Self.full.meets(minimumAccuracy: 20.9))
        #expect(!Self.full.meets(minimumAccuracy: 20.8))
        #expect(Self.full.meets(minimumAccuracy: nil))
        let noEstimate = Fix(time: Timestamp(seconds: 0), mode: .twoD, latitude: 0, longitude: 0)
        #expect(!noEstimate.meets(minimumAccuracy: 1000))
    }
}

@Suite("Fixed-point numbers as printf writes them", .timeLimit(.minutes(1)))
struct FixedPointTests {
    @Test("given values and decimals when appended then the text is printf's %.*f",
          arguments: [
            (-37.784788333, 9), (175.314896667, 9), (83.6, 4), (-0.1, 3), (-0.0001, 3), (0.0, 3), (-0.0, 2),
            (0.0005, 3), (0.0015, 3), (2.5, 0), (3.5, 0), (1899.8, 3), (-2001691.12, 2), (4596546.66, 2),
            (0.355, 3), (20.5, 1), (181.39, 4), (1e300, 2), (123456789.123456789, 9), (47.000001, 9),
          ])
    func matchesPrintf(value: Double, decimals: Int) {
        var text = ""
        text.appendFixed(value, decimals: decimals)
        var expected = ""
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 400) { buffer in
            _ = withVaList([Int32(decimals), value]) { vsnprintf(buffer.baseAddress!, 400, "%.*f", $0) }
            expected = String(cString: buffer.baseAddress!)
        }
        #expect(text == expected)
    }
}
