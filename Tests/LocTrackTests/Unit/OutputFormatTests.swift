import LocTrack
@testable import LocTrackCLI
import Testing

@Suite("Output lines")
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
