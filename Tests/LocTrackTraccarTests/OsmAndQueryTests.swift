import LocTrack
import LocTrackDistance
import LocTrackTraccar
import Testing

@Suite("OsmAnd query: a fix in Traccar's units and gpsd's digits", .timeLimit(.minutes(1)))
struct OsmAndQueryTests {
    static func query(_ fix: Fix, id: String = "car1", odometer: OdometerReading = OdometerReading(metres: 0, moving: false), sky: SkyView? = nil) -> String {
        String(decoding: OsmAndQuery.encode(fix, deviceID: id, odometer: odometer, sky: sky), as: UTF8.self)
    }

    @Test("given a full fix, an odometer and a SKY report when encoded then every field is there, in knots, milliseconds and gpsd's decimals")
    func fullFix() {
        let fix = Fixes.fix(
            altitudeHAE: 80.1234, altitudeMSL: 36.5, horizontalError: 4.25, speed: 10, track: 123.4567)
        let sky = SkyView(seen: 12, used: 7, dilution: SkyView.DilutionOfPrecision(horizontal: 0.93))
        let text = Self.query(fix, id: "car 1", odometer: OdometerReading(metres: 12_345.6789, moving: true), sky: sky)
        #expect(text == "id=car%201&timestamp=1764000000240&lat=52.520008123&lon=13.404954321&speed=19.438&bearing=123.4567"
            + "&altitude=36.5000&accuracy=4.250&hdop=0.93&sat=7&satVisible=12&odometer=12345.679&motion=true&status=GPS"
            + "&device=%2Fdev%2FttyACM0")
    }

    @Test("given a bare 2D fix when encoded then what is unknown is left out, never NaN or null")
    func bareFix() {
        let fix = Fixes.fix(device: nil, latitude: -33.86882, longitude: 151.20929)
        #expect(Self.query(fix) == "id=car1&timestamp=1764000000240&lat=-33.868820000&lon=151.209290000&odometer=0.000&motion=false&status=GPS")
    }

    @Test("given no MSL altitude when encoded then the ellipsoid's is sent")
    func altitudeFallsBackToHAE() {
        #expect(Self.query(Fixes.fix(device: nil, altitudeHAE: 80.1234)).contains("&altitude=80.1234&"))
    }

    @Test(
        "given a speed in m/s when encoded then Traccar gets knots (x 1.943844)",
        arguments: [(0.0, "0.000"), (1.0, "1.944"), (27.778, "53.996"), (0.514444, "1.000")])
    func knots(metresPerSecond: Double, knots: String) {
        #expect(Self.query(Fixes.fix(device: nil, speed: metresPerSecond)).contains("&speed=\(knots)&"))
    }

    @Test("given a non-finite speed or accuracy when encoded then it is left out")
    func nonFiniteValuesLeftOut() {
        let text = Self.query(Fixes.fix(device: nil, horizontalError: .infinity, speed: .nan))
        #expect(!text.contains("speed="))
        #expect(!text.contains("accuracy="))
    }

    @Test(
        "given the fix's time when encoded then the timestamp is whole milliseconds since 1970, rounded down",
        arguments: [(Int32(0), "1764000000000"), (999_999_999, "1764000000999"), (1_500_000, "1764000000001")])
    func milliseconds(nanoseconds: Int32, expected: String) {
        let fix = Fixes.fix(at: Timestamp(seconds: Fixes.seconds, nanoseconds: nanoseconds), device: nil)
        #expect(Self.query(fix).contains("&timestamp=\(expected)&"))
    }

    @Test("given a device id, a status and a device path with reserved characters when encoded then each is percent-encoded")
    func percentEncoding() {
        let fix = Fixes.fix(status: .rtkFixed, device: "tcp://gps.local:2947 #2")
        let text = Self.query(fix, id: "a&b=c+d/é")
        #expect(text.hasPrefix("id=a%26b%3Dc%2Bd%2F%C3%A9&"))
        #expect(text.hasSuffix("&status=RTK%20fixed&device=tcp%3A%2F%2Fgps.local%3A2947%20%232"))
    }

    @Test("given an odometer reading when encoded then it is metres to the millimetre")
    func odometerToTheMillimetre() {
        let text = Self.query(Fixes.fix(device: nil), odometer: OdometerReading(metres: 1_234_567.0004, moving: false))
        #expect(text.contains("&odometer=1234567.000&motion=false&"))
    }
}
