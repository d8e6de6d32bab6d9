import LocTrack
@testable import LocTrackFormats
import Testing

/// NMEA 0183's RMC and GGA for a fix (issue 36's `--format nmea` and `udp://` will write them).
@Suite("NMEA 0183 sentences")
struct NMEASentencesTests {
    static func sentences(_ fix: Fix, talker: NMEASentences.Talker = .gps, satellites: Int? = nil, hdop: Double? = nil) -> [String] {
        var output = OutputBytes()
        NMEASentences.append(fix, talker: talker, satellitesUsed: satellites, hdop: hdop, to: &output)
        return String(decoding: output.bytes, as: UTF8.self).split(separator: "\r\n").map(String.init)
    }

    @Test("given NMEA's textbook GGA when its checksum is taken then it is the 47 the sentence carries")
    func textbookChecksum() {
        #expect(NMEASentences.checksum(of: Array("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,".utf8)) == 0x47)
    }

    @Test("given a 3D DGPS fix with speed, course, variation, SKY's count and HDOP and a DGPS station when written then RMC and GGA carry them, to 5 decimals of a minute, with checksums")
    func fullFix() {
        let fix = Fix(
            time: Timestamp(seconds: 1_773_573_124, nanoseconds: 560_000_000), mode: .threeD, status: .dgps,
            latitude: 48.1173, longitude: -11.516666667, altitudeHAE: 592.3, altitudeMSL: 545.4,
            speed: 11.523, track: 84.4, magneticVariation: -3.1, geoidSeparation: 46.9, dgpsAge: 2.5, dgpsStation: 12)
        let lines = Self.sentences(fix, talker: .gnss, satellites: 8, hdop: 0.9)
        #expect(lines == [
            "$GNRMC,111204.56,A,4807.03800,N,01131.00000,W,22.40,84.40,150326,3.1,W,D*" + Self.sum("GNRMC,111204.56,A,4807.03800,N,01131.00000,W,22.40,84.40,150326,3.1,W,D"),
            "$GNGGA,111204.56,4807.03800,N,01131.00000,W,2,08,0.9,545.4,M,46.9,M,2.5,0012*" + Self.sum("GNGGA,111204.56,4807.03800,N,01131.00000,W,2,08,0.9,545.4,M,46.9,M,2.5,0012"),
        ])
        #expect(lines.allSatisfy { $0.utf8.count + 2 <= 82 }, "NMEA's longest sentence is 82 characters with CR LF")
    }

    @Test("given a 2D fix with nothing but a position when written then the unknown fields are empty and GGA has no altitude")
    func bareFix() {
        let fix = Fix(time: Timestamp(seconds: 0), mode: .twoD, latitude: -33.856784, longitude: 151.215297)
        #expect(Self.sentences(fix) == [
            "$GPRMC,000000.00,A,3351.40704,S,15112.91782,E,,,010170,,,A*" + Self.sum("GPRMC,000000.00,A,3351.40704,S,15112.91782,E,,,010170,,,A"),
            "$GPGGA,000000.00,3351.40704,S,15112.91782,E,1,,,,M,,M,,*" + Self.sum("GPGGA,000000.00,3351.40704,S,15112.91782,E,1,,,,M,,M,,"),
        ])
    }

    @Test("given a latitude a hair below a whole degree when written then the minutes round to the next degree, never to 60", arguments: [
        (59.999999999, "6000.00000,N"), (0.0000001, "0000.00001,N"), (-0.0000001, "0000.00001,S"),
    ])
    func minutesNeverReachSixty(latitude: Double, expected: String) {
        let fix = Fix(time: Timestamp(seconds: 0), mode: .twoD, latitude: latitude, longitude: 0)
        #expect(Self.sentences(fix)[0].contains(",A,\(expected),00000.00000,E,"), "\(Self.sentences(fix)[0])")
    }

    @Test("given each status when written then GGA's quality and RMC's mode are NMEA's for it", arguments: [
        (Fix.Status.gps, "1", "A"), (.dgps, "2", "D"), (.pps, "3", "A"), (.rtkFixed, "4", "D"), (.rtkFloat, "5", "D"),
        (.deadReckoning, "6", "E"), (.gnssDeadReckoning, "6", "E"), (.simulated, "8", "S"),
    ])
    func qualityAndMode(status: Fix.Status, quality: String, mode: String) {
        let fix = Fix(time: Timestamp(seconds: 0), mode: .twoD, status: status, latitude: 1, longitude: 1)
        let lines = Self.sentences(fix)
        #expect(lines[0].hasSuffix(",\(mode)*" + lines[0].suffix(2)))
        #expect(lines[1].split(separator: ",", omittingEmptySubsequences: false)[6] == Substring(quality))
    }

    static func sum(_ body: String) -> String {
        let value = NMEASentences.checksum(of: Array(body.utf8))
        let hex = Array("0123456789ABCDEF")
        return String([hex[Int(value >> 4)], hex[Int(value & 0x0F)]])
    }
}

/// `--format nmea`'s encoder: each fix with what its own device's latest SKY says.
@Suite("NMEA 0183 encoder with SKY")
struct NMEAEncoderTests {
    static let fix = Fix(time: Timestamp(seconds: 0), mode: .twoD, device: "/dev/ttyACM0", latitude: 1, longitude: 2)

    static func sky(device: String?, _ constellations: [SkyView.Constellation], hdop: Double) -> SkyView {
        SkyView(
            device: device, seen: constellations.count + 1, used: constellations.count,
            dilution: .init(horizontal: hdop),
            satellites: constellations.enumerated().map { .init(prn: $0.offset + 1, constellation: $0.element, used: true) }
                + [.init(prn: 99, constellation: .beidou, used: false)])
    }

    static func gga(_ encoder: inout NMEAEncoder) -> Substring {
        var output = OutputBytes()
        encoder.encode(fix, into: &output)
        let text = String(decoding: output.bytes, as: UTF8.self)
        return text.split(separator: "\r\n")[1].split(separator: "*")[0]
    }

    @Test("given no SKY, GPS with QZSS and SBAS, then GLONASS used, when a fix is written then the talker is GP, GP, then GN, with SKY's count and HDOP (without SKY, the least a 2D fix needs)")
    func talkerAndCountFromSky() {
        var encoder = NMEAEncoder()
        #expect(Self.gga(&encoder) == "$GPGGA,000000.00,0100.00000,N,00200.00000,E,1,03,,,M,,M,,")
        // An unused BeiDou satellite does not make the fix multi-constellation.
        encoder.note(Self.sky(device: "/dev/ttyACM0", [.gps, .gps, .qzss, .sbas], hdop: 1.25))
        #expect(Self.gga(&encoder) == "$GPGGA,000000.00,0100.00000,N,00200.00000,E,1,04,1.2,,M,,M,,")
        encoder.note(Self.sky(device: "/dev/ttyACM0", [.gps, .glonass, .gps, .galileo, .gps], hdop: 0.8))
        #expect(Self.gga(&encoder) == "$GNGGA,000000.00,0100.00000,N,00200.00000,E,1,05,0.8,,M,,M,,")
    }

    @Test("given SKY from another device when a fix is written then that SKY is not the fix's")
    func skyIsPerDevice() {
        var encoder = NMEAEncoder()
        encoder.note(Self.sky(device: "/dev/ttyUSB1", [.glonass, .gps], hdop: 3))
        #expect(Self.gga(&encoder) == "$GPGGA,000000.00,0100.00000,N,00200.00000,E,1,03,,,M,,M,,")
    }
}
