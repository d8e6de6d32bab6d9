package import LocTrack

/// A fix as NMEA 0183 sentences, what a receiver (or gpsd's `gps2udp`) sends to a chart
/// plotter, OpenCPN or Signal K: `RMC` (position, speed, course, date) then `GGA` (fix
/// quality, satellites, HDOP, altitude), each `$…*hh` with its checksum and CR LF.
///
/// Positions are written to 5 decimals of a minute (about 2 cm), from integer arithmetic so
/// that a latitude never rounds up to 60 minutes; altitudes to decimetres, as receivers do,
/// which keeps a usual GGA within NMEA's 82 characters (an extreme one, with a four-digit
/// negative altitude and an HDOP over 10, can reach 86, as some receivers' do). Values a fix does not have are empty
/// fields, as NMEA allows. RMC's mode letter is NMEA 2.3's (A, D, E, S), which every
/// listener reads; GGA's quality is the fix's status (gpsd's codes mapped back).
package enum NMEASentences {
    /// The sentences' talker: `GP` when the fix came from GPS alone, `GN` when other
    /// constellations were used too (the receiver's SKY report says which).
    package enum Talker: Sendable {
        case gps, gnss

        fileprivate var letters: StaticString { self == .gps ? "GP" : "GN" }
    }

    /// RMC then GGA for `fix`.
    /// - Parameters:
    ///   - satellitesUsed: GGA's satellite count, from gpsd's SKY (`uSat`); empty when nil.
    ///   - hdop: GGA's horizontal dilution of precision, from SKY; empty when nil.
    package static func append(
        _ fix: Fix, talker: Talker, satellitesUsed: Int? = nil, hdop: Double? = nil, to output: inout OutputBytes
    ) {
        let time = fix.time.utcFields
        // RMC
        var start = output.count
        output.append(byte: 0x24)  // $
        output.append(talker.letters)
        output.append("RMC,")
        appendTime(fix.time, to: &output)
        output.append(",A,")
        appendPosition(fix, to: &output)
        output.append(byte: 0x2C)
        if let speed = fix.speed, speed.isFinite { output.appendFixed(speed * 3600 / 1852, decimals: 2) }  // knots
        output.append(byte: 0x2C)
        if let track = fix.track, track.isFinite { output.appendFixed(track, decimals: 2) }
        output.append(byte: 0x2C)
        output.append(UInt64(max(0, time.day)), width: 2)
        output.append(UInt64(max(0, time.month)), width: 2)
        output.append(UInt64(max(0, time.year) % 100), width: 2)
        output.append(byte: 0x2C)
        if let variation = fix.magneticVariation, variation.isFinite {
            output.appendFixed(variation.magnitude, decimals: 1)
            output.append(variation < 0 ? ",W," : ",E,")
        } else {
            output.append(",,")
        }
        output.append(rmcMode(fix.status))
        finish(from: start, &output)
        // GGA
        start = output.count
        output.append(byte: 0x24)
        output.append(talker.letters)
        output.append("GGA,")
        appendTime(fix.time, to: &output)
        output.append(byte: 0x2C)
        appendPosition(fix, to: &output)
        output.append(byte: 0x2C)
        output.append(UInt64(ggaQuality(fix.status)))
        output.append(byte: 0x2C)
        if let satellitesUsed, satellitesUsed >= 0 { output.append(UInt64(min(satellitesUsed, 99)), width: 2) }
        output.append(byte: 0x2C)
        if let hdop, hdop.isFinite { output.appendFixed(hdop, decimals: 1) }
        output.append(byte: 0x2C)
        if fix.mode == .threeD, let altitude = fix.altitudeMSL ?? fix.altitudeHAE, altitude.isFinite {
            output.appendFixed(altitude, decimals: 1)
        }
        output.append(",M,")
        if let separation = fix.geoidSeparation, separation.isFinite { output.appendFixed(separation, decimals: 1) }
        output.append(",M,")
        if let age = fix.dgpsAge, let station = fix.dgpsStation, age.isFinite {
            output.appendFixed(age, decimals: 1)
            output.append(byte: 0x2C)
            output.append(UInt64(max(0, min(station, 9999))), width: 4)
        } else {
            output.append(byte: 0x2C)
        }
        finish(from: start, &output)
    }

    /// The checksum of a sentence's body (the bytes between `$` and `*`): their XOR.
    package static func checksum(of body: some Sequence<UInt8>) -> UInt8 {
        body.reduce(0, ^)
    }

    /// `hhmmss.ss`, UTC, the hundredths truncated from the fix's time.
    private static func appendTime(_ time: Timestamp, to output: inout OutputBytes) {
        let fields = time.utcFields
        output.append(UInt64(max(0, fields.hour)), width: 2)
        output.append(UInt64(max(0, fields.minute)), width: 2)
        output.append(UInt64(max(0, fields.second)), width: 2)
        output.append(byte: 0x2E)
        output.append(UInt64(max(0, fields.millisecond) / 10), width: 2)
    }

    /// `ddmm.mmmmm,N,dddmm.mmmmm,E`.
    private static func appendPosition(_ fix: Fix, to output: inout OutputBytes) {
        appendAngle(fix.latitude, degreeDigits: 2, to: &output)
        output.append(fix.latitude < 0 ? ",S," : ",N,")
        appendAngle(fix.longitude, degreeDigits: 3, to: &output)
        output.append(fix.longitude < 0 ? ",W" : ",E")
    }

    /// Degrees and minutes to 5 decimals, counted in hundred-thousandths of a minute.
    private static func appendAngle(_ degrees: Double, degreeDigits: Int, to output: inout OutputBytes) {
        let perMinute: UInt64 = 100_000
        let units = UInt64((degrees.magnitude * 60 * Double(perMinute)).rounded())
        let wholeDegrees = units / (60 * perMinute)
        let rest = units % (60 * perMinute)
        output.append(wholeDegrees, width: degreeDigits)
        output.append(rest / perMinute, width: 2)
        output.append(byte: 0x2E)
        output.append(rest % perMinute, width: 5)
    }

    /// Ends the sentence begun at `start` (its `$`): `*hh` and CR LF.
    private static func finish(from start: Int, _ output: inout OutputBytes) {
        let sum = checksum(of: output.bytes[(start + 1)...])
        output.append(byte: 0x2A)  // *
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        output.append(byte: hex[Int(sum >> 4)])
        output.append(byte: hex[Int(sum & 0x0F)])
        output.append(byte: 0x0D)
        output.append(byte: 0x0A)
    }

    /// RMC's mode indicator (NMEA 2.3): A autonomous, D differential (DGPS and RTK), E
    /// estimated (dead reckoning), S simulated.
    private static func rmcMode(_ status: Fix.Status) -> StaticString {
        switch status {
        case .dgps, .rtkFixed, .rtkFloat: "D"
        case .deadReckoning, .gnssDeadReckoning: "E"
        case .simulated: "S"
        default: "A"
        }
    }

    /// GGA's fix quality: 1 GPS, 2 DGPS, 3 PPS (P(Y) code), 4 RTK fixed, 5 RTK float, 6 dead
    /// reckoning, 8 simulated (gpsd reads them back as the statuses they came from).
    private static func ggaQuality(_ status: Fix.Status) -> Int {
        switch status {
        case .dgps: 2
        case .pps: 3
        case .rtkFixed: 4
        case .rtkFloat: 5
        case .deadReckoning, .gnssDeadReckoning: 6
        case .simulated: 8
        default: 1
        }
    }
}
