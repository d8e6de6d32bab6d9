package import Foundation
package import LocTrack

/// A generated NMEA 0183 log with known values, one epoch per second (or per
/// `interval` seconds: a receiver in a power-save mode, a sparse source), and the
/// values gpsd 3.22 and 3.25 report for it.
///
/// Every epoch is written as `GSA`, `GST` (when the epoch has one), `RMC`,
/// `GGA` for gpsd 3.22, as `RMC`, `GSA`, `GST`, `GGA` for gpsd 3.25 (``writeOrder``),
/// each with a correct `*HH` checksum and CRLF. What gpsd 3.22 makes of that was
/// measured with `gpsfake -p` (see the `expected…` properties); 3.25 reports the same
/// values in each epoch's last TPV:
///
/// - gpsd 3.22 learns `GGA` as the cycle ender and, from the second epoch on, sends
///   one TPV per epoch after it. In the first epoch it sends one TPV per
///   sentence: `GSA` (mode 3, no time), `RMC` (no altitude, a model geoid
///   separation), `GGA` (altitude); a fix must carry the `GGA` values. gpsd 3.25
///   sends a TPV after each of `RMC`, `GSA` and `GGA` in every epoch.
/// - `eph` = 19 × HDOP, `epv` = 23 × VDOP, `sep` = 19 × PDOP (DGPS, i.e. RMC
///   mode `D`: 4.75, 5.75, 4.75), printed with 3 decimals, from the epoch's own
///   `GSA` (see ``writeOrder``). `GGA`'s HDOP is not used for it.
/// - `GST` does not change `eph`, `epx` or `epy` in gpsd 3.22: it only produces a
///   separate `GST` report. Without `GSA` (an `RMC`-only log) there is no `eph`.
/// - A 2D epoch needs a `GGA` without altitude *and* without geoid separation
///   (either one makes gpsd report mode 3); even so gpsd reports the first 2D
///   epoch after a 3D one as mode 3 without altitude. A no-fix epoch has empty
///   fields and gives a mode 1 TPV without position.
/// - Positions are whole micro-degrees, written as `ddmm.mmmmm` (1e-6° is exactly
///   6e-5′), so gpsd's 9-decimal `lat`/`lon` is the exact decimal and parses to
///   `Double(micro-degrees) / 1e6`.
/// - Dates are after 2017: gpsd 3.22 moves older NMEA dates forward by 1024 weeks.
package struct NMEALog: Sendable, Hashable {
    package enum Sentence: Sendable, Hashable {
        case gsa, gst, rmc, gga
    }

    /// The receiver's fix for one epoch.
    package enum Quality: Sendable, Hashable {
        case noFix, twoD, threeD
    }

    /// `$GPGST` values: RMS, error ellipse and 1-sigma errors, metres and degrees.
    package struct GST: Sendable, Hashable {
        package var rms = 0.5
        package var semiMajor = 3.0
        package var semiMinor = 2.0
        package var orientation = 30.0
        package var latitudeSigma = 2.0
        package var longitudeSigma = 3.0
        package var altitudeSigma = 5.0
    }

    /// One second of the simulated receiver. Decimal values are kept in tenths
    /// (as NMEA writes them) so that gpsd's output is exactly predictable.
    package struct Epoch: Sendable, Hashable {
        package var quality: Quality = .threeD
        /// Differential fix (GGA quality 2): gpsd reports `status` 2.
        package var dgps = false
        package var latitudeMicrodegrees: Int64
        package var longitudeMicrodegrees: Int64
        package var altitudeMSLTenths: Int64 = 4_080
        package var geoidSeparationTenths: Int64 = 474
        package var speedKnotsTenths: Int64 = 0
        package var trackTenths: Int64 = 0
        package var hdopTenths: Int64 = 10
        package var vdopTenths: Int64 = 15
        package var pdopTenths: Int64 = 18
        package var gst: GST?

        package init(
            quality: Quality = .threeD, dgps: Bool = false, latitude: Double, longitude: Double,
            altitudeMSL: Double = 408.0, geoidSeparation: Double = 47.4, speedKnots: Double = 0,
            track: Double = 0, hdop: Double = 1.0, vdop: Double = 1.5, pdop: Double = 1.8, gst: GST? = nil
        ) {
            self.quality = quality
            self.dgps = dgps
            self.latitudeMicrodegrees = Int64((latitude * 1e6).rounded())
            self.longitudeMicrodegrees = Int64((longitude * 1e6).rounded())
            self.altitudeMSLTenths = Int64((altitudeMSL * 10).rounded())
            self.geoidSeparationTenths = Int64((geoidSeparation * 10).rounded())
            self.speedKnotsTenths = Int64((speedKnots * 10).rounded())
            self.trackTenths = Int64((track * 10).rounded())
            self.hdopTenths = Int64((hdop * 10).rounded())
            self.vdopTenths = Int64((vdop * 10).rounded())
            self.pdopTenths = Int64((pdop * 10).rounded())
            self.gst = gst
        }
    }

    /// The time of the first epoch: 2026-03-01T10:00:00Z.
    package static let defaultStart = Timestamp(seconds: 1_772_359_200)

    package let epochs: [Epoch]
    package let start: Timestamp
    /// The sentences of every epoch, in order (GST only where an epoch has one).
    package let sentences: [Sentence]
    /// Seconds of receiver time from one epoch to the next.
    package let interval: Int64

    package init(
        epochs: [Epoch], start: Timestamp = NMEALog.defaultStart, sentences: [Sentence] = [.gsa, .gst, .rmc, .gga],
        interval: Int64 = 1
    ) {
        self.epochs = epochs
        self.start = start
        self.sentences = sentences
        self.interval = interval
    }

    // MARK: - Ready-made logs

    /// A walk north-east with a 3D fix: every epoch has different values.
    /// - Parameters:
    ///   - count: the number of epochs (seconds).
    ///   - hdop: HDOP per epoch index (eph = 19 × HDOP).
    package static func walk(
        epochs count: Int, start: Timestamp = NMEALog.defaultStart, sentences: [Sentence] = [.gsa, .gst, .rmc, .gga],
        quality: (Int) -> Quality = { _ in .threeD },
        hdop: (Int) -> Double = { 0.8 + 0.1 * Double($0 % 4) }
    ) -> NMEALog {
        var epochs: [Epoch] = []
        for index in 0..<count {
            let step = Double(index)
            let latitude: Double = 47.376887 + 0.000011 * step
            let longitude: Double = 8.541694 + 0.000017 * step
            let altitude: Double = 408.0 + 0.5 * step
            let speed: Double = 2.4 + 0.1 * Double(index % 10)
            let track: Double = Double((index * 7) % 360) + 0.5
            let vdop: Double = 1.2 + 0.1 * Double(index % 3)
            let pdop: Double = 1.6 + 0.1 * Double(index % 5)
            let gst = GST(latitudeSigma: 1.0 + step, longitudeSigma: 1.5 + step)
            epochs.append(Epoch(
                quality: quality(index), latitude: latitude, longitude: longitude, altitudeMSL: altitude,
                speedKnots: speed, track: track, hdop: hdop(index), vdop: vdop, pdop: pdop, gst: gst))
        }
        return NMEALog(epochs: epochs, start: start, sentences: sentences)
    }

    // MARK: - Text

    /// The time of epoch `index`.
    package func time(ofEpoch index: Int) -> Timestamp {
        Timestamp(seconds: start.seconds + Int64(index) * interval, nanoseconds: start.nanoseconds)
    }

    /// The sentences of epoch `index`, each `$…*HH\r\n`.
    /// The order an epoch's sentences are written in, whichever of them a log has, so that
    /// each epoch's last TPV carries that epoch's own `GSA` values: gpsd 3.22 puts a `GSA`
    /// that comes after the epoch's `RMC` into the next epoch's TPV, so there `GSA` comes
    /// first; gpsd 3.25 puts a `GSA` that comes before the epoch's first timed sentence into
    /// a TPV of the epoch before, so there it comes after `RMC` (as most receivers send it).
    /// `GGA`, gpsd's cycle ender, is last in both. (Measured with 3.22 and 3.25 only: the
    /// versions between get 3.22's order.)
    static let writeOrder: [Sentence] = GPSDVersion.installed >= GPSDVersion(3, 25)
        ? [.rmc, .gsa, .gst, .gga] : [.gsa, .gst, .rmc, .gga]

    package func sentences(ofEpoch index: Int) -> [String] {
        let epoch = epochs[index]
        let iso = time(ofEpoch: index).iso8601  // 2026-03-01T10:00:00.000Z
        let chars = Array(iso)
        let hhmmss = String(chars[11..<13]) + String(chars[14..<16]) + String(chars[17..<19]) + ".00"
        let ddmmyy = String(chars[8..<10]) + String(chars[5..<7]) + String(chars[2..<4])
        let hasFix = epoch.quality != .noFix
        let lat = hasFix ? Self.degreesMinutes(epoch.latitudeMicrodegrees, degreeDigits: 2) : ""
        let ns = hasFix ? (epoch.latitudeMicrodegrees >= 0 ? "N" : "S") : ""
        let lon = hasFix ? Self.degreesMinutes(epoch.longitudeMicrodegrees, degreeDigits: 3) : ""
        let ew = hasFix ? (epoch.longitudeMicrodegrees >= 0 ? "E" : "W") : ""
        var lines: [String] = []
        for sentence in Self.writeOrder where sentences.contains(sentence) {
            switch sentence {
            case .gsa:
                let mode = switch epoch.quality { case .noFix: 1; case .twoD: 2; case .threeD: 3 }
                let used = hasFix ? "01,02,03,04,05,06,07,08,,,," : ",,,,,,,,,,,"
                lines.append(Self.sentence("GPGSA,A,\(mode),\(used),\(Self.tenths(epoch.pdopTenths)),\(Self.tenths(epoch.hdopTenths)),\(Self.tenths(epoch.vdopTenths))"))
            case .gst:
                guard let gst = epoch.gst else { continue }
                let values = [gst.rms, gst.semiMajor, gst.semiMinor, gst.orientation, gst.latitudeSigma, gst.longitudeSigma, gst.altitudeSigma]
                lines.append(Self.sentence("GPGST,\(hhmmss)," + values.map { String(format: "%.1f", $0) }.joined(separator: ",")))
            case .rmc:
                if hasFix {
                    lines.append(Self.sentence("GPRMC,\(hhmmss),A,\(lat),\(ns),\(lon),\(ew),\(Self.tenths(epoch.speedKnotsTenths)),\(Self.tenths(epoch.trackTenths)),\(ddmmyy),,,\(epoch.dgps ? "D" : "A")"))
                } else {
                    lines.append(Self.sentence("GPRMC,\(hhmmss),V,,,,,,,\(ddmmyy),,,N"))
                }
            case .gga:
                let fixQuality = hasFix ? (epoch.dgps ? 2 : 1) : 0
                // A 2D fix has neither altitude nor geoid separation: either makes gpsd say 3D.
                let heights = epoch.quality == .threeD
                    ? "\(Self.tenths(epoch.altitudeMSLTenths)),M,\(Self.tenths(epoch.geoidSeparationTenths)),M"
                    : ",,,"
                lines.append(Self.sentence("GPGGA,\(hhmmss),\(lat),\(ns),\(lon),\(ew),\(fixQuality),\(hasFix ? "08" : "00"),\(Self.tenths(epoch.hdopTenths)),\(heights),,"))
            }
        }
        return lines
    }

    /// How many sentences (gpsfake packets) epoch `index` has.
    package func sentenceCount(ofEpoch index: Int) -> Int { sentences(ofEpoch: index).count }

    /// The whole log, with a leading comment (gpsfake skips comments).
    package var text: String {
        "# loctrack end-to-end test log: \(epochs.count) epochs from \(start.iso8601)\r\n"
            + epochs.indices.flatMap { sentences(ofEpoch: $0) }.joined()
    }

    /// Writes the log to `url`.
    package func write(to url: URL) throws {
        try Data(text.utf8).write(to: url)
    }

    /// Writes the log to a new file in a new temporary directory and returns its URL.
    package func writeToTemporaryFile(named name: String = "generated.log") throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("loctrack-nmea-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try write(to: url)
        return url
    }

    /// `$BODY*HH\r\n` with the XOR checksum of BODY.
    package static func sentence(_ body: String) -> String {
        let checksum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
        return "$" + body + "*" + String(format: "%02X", checksum) + "\r\n"
    }

    /// `ddmm.mmmmm` (or `dddmm.mmmmm`) for a magnitude in micro-degrees: exact, since 1e-6° = 6e-5′.
    package static func degreesMinutes(_ microdegrees: Int64, degreeDigits: Int) -> String {
        let magnitude = abs(microdegrees)
        let degrees = magnitude / 1_000_000
        let minutesHundredThousandths = (magnitude % 1_000_000) * 6
        let minutes = minutesHundredThousandths / 100_000
        let fraction = minutesHundredThousandths % 100_000
        return String(format: "%0\(degreeDigits)lld%02lld.%05lld", degrees, minutes, fraction)
    }

    package static func tenths(_ value: Int64) -> String {
        let sign = value < 0 ? "-" : ""
        return "\(sign)\(abs(value) / 10).\(abs(value) % 10)"
    }
}

// MARK: - What gpsd reports

extension NMEALog.Epoch {
    /// The receiver's mode, or `nil` without a fix; gpsd's can differ, see ``NMEALog/expectedMode(ofEpoch:)``.
    package var receiverMode: Fix.Mode? {
        switch quality {
        case .noFix: nil
        case .twoD: .twoD
        case .threeD: .threeD
        }
    }

    package var expectedStatus: Fix.Status { dgps ? .dgps : .gps }
    /// `lat`: exact, see ``NMEALog``.
    package var expectedLatitude: Double { Double(latitudeMicrodegrees) / 1e6 }
    package var expectedLongitude: Double { Double(longitudeMicrodegrees) / 1e6 }
    /// `speed` in m/s: knots × 1852/3600, printed by gpsd with 3 decimals (never a tie for tenths of knots).
    package var expectedSpeed: Double { (Double(speedKnotsTenths) * 185.2 / 3.6).rounded() / 1000 }
    package var expectedTrack: Double { Double(trackTenths) / 10 }
}

extension NMEALog {
    /// gpsd's mode for epoch `index`, or `nil` for no fix (no `Fix` is made).
    ///
    /// gpsd 3.22 reports the first 2D epoch after a 3D one as mode 3 (without
    /// altitude); the next 2D epoch is mode 2.
    package func expectedMode(ofEpoch index: Int) -> Fix.Mode? {
        guard let mode = epochs[index].receiverMode else { return nil }
        if !sentences.contains(.gga) { return .twoD }  // RMC has no altitude
        if mode == .twoD, index > 0, epochs[index - 1].quality == .threeD { return .threeD }
        return mode
    }

    /// Whether gpsd gets an altitude for epoch `index` (a 3D epoch with GGA).
    package func hasAltitude(epoch index: Int) -> Bool {
        sentences.contains(.gga) && epochs[index].quality == .threeD
    }

    /// `altMSL`, when the epoch has an altitude.
    package func expectedAltitudeMSL(ofEpoch index: Int) -> Double? {
        hasAltitude(epoch: index) ? Double(epochs[index].altitudeMSLTenths) / 10 : nil
    }

    /// `altHAE` = MSL + geoid separation, when the epoch has an altitude.
    package func expectedAltitudeHAE(ofEpoch index: Int) -> Double? {
        hasAltitude(epoch: index) ? Double(epochs[index].altitudeMSLTenths + epochs[index].geoidSeparationTenths) / 10 : nil
    }

    /// `geoidSep` from GGA, when the epoch has an altitude.
    package func expectedGeoidSeparation(ofEpoch index: Int) -> Double? {
        hasAltitude(epoch: index) ? Double(epochs[index].geoidSeparationTenths) / 10 : nil
    }

    /// gpsd's `eph` for epoch `index`: HDOP × 19 m, or × 4.75 m for DGPS (RMC mode `D`); none without GSA.
    package func expectedHorizontalError(ofEpoch index: Int) -> Double? {
        guard sentences.contains(.gsa), epochs[index].quality != .noFix else { return nil }
        return Double(epochs[index].hdopTenths * (epochs[index].dgps ? 475 : 1_900)) / 1_000
    }

    /// gpsd's `epv` for a 3D epoch: VDOP × 23 m, or × 5.75 m for DGPS; none without GSA.
    /// (For 2D epochs gpsd sometimes repeats an old `epv`: not predicted.)
    package func expectedVerticalError(ofEpoch index: Int) -> Double? {
        guard sentences.contains(.gsa), hasAltitude(epoch: index) else { return nil }
        return Double(epochs[index].vdopTenths * (epochs[index].dgps ? 575 : 2_300)) / 1_000
    }

    /// gpsd's `sep` (spherical error): PDOP × 19 m, or × 4.75 m for DGPS; none without GSA.
    package func expectedSphericalError(ofEpoch index: Int) -> Double? {
        guard sentences.contains(.gsa), epochs[index].quality != .noFix else { return nil }
        return Double(epochs[index].pdopTenths * (epochs[index].dgps ? 475 : 1_900)) / 1_000
    }

    /// The indexes of the epochs that make a fix (2D or 3D).
    package var fixEpochIndexes: [Int] { epochs.indices.filter { epochs[$0].quality != .noFix } }
}
