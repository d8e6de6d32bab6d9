extension SkyView {
    /// Reads a SKY report that loctrack's own JSON parser has read.
    ///
    /// Not libgps: its 3.22 parser loops forever on some SKY lines, well-formed ones
    /// included (an unknown key whose value is an array of objects; found by the fuzz
    /// test, and reproduced with `gps_unpack` alone), so a gpsd that sends one would
    /// freeze the reader. TPVs are safe: they are flat, and ``FlatReport`` vets them
    /// before libgps sees them.
    ///
    /// A value of the wrong type or out of its range is left out, as libgps would.
    /// - Returns: nil when `report` is not an object.
    init?(report: JSONValue) {
        guard case .object = report else { return nil }
        var satellites: [Satellite] = []
        if case .array(let entries)? = report["satellites"] {
            satellites.reserveCapacity(entries.count)
            for entry in entries {
                if let satellite = Satellite(report: entry) { satellites.append(satellite) }
            }
        }
        let device = report["device"]?.stringValue
        self.init(
            device: device?.isEmpty == false ? device : nil,
            time: report["time"]?.stringValue.flatMap { Timestamp(iso8601: $0) },
            seen: Self.count(report["nSat"]) ?? satellites.count,
            used: Self.count(report["uSat"]) ?? satellites.filter(\.used).count,
            dilution: DilutionOfPrecision(
                horizontal: Self.dop(report["hdop"]), vertical: Self.dop(report["vdop"]),
                position: Self.dop(report["pdop"]), time: Self.dop(report["tdop"]), geometric: Self.dop(report["gdop"]),
                longitude: Self.dop(report["xdop"]), latitude: Self.dop(report["ydop"])),
            satellites: satellites)
    }

    /// A count of satellites: a whole number from 0 to 1,000.
    private static func count(_ value: JSONValue?) -> Int? {
        wholeNumber(value, in: 0...1000)
    }

    /// A dilution of precision is > 0 (gpsd sends none it does not know).
    private static func dop(_ value: JSONValue?) -> Double? {
        guard let number = value?.doubleValue, number > 0, number < 100_000 else { return nil }
        return number
    }
}

extension SkyView.Satellite {
    /// One entry of a SKY report's `satellites`; nil without a usable `PRN`.
    init?(report: JSONValue) {
        guard let prn = wholeNumber(report["PRN"], in: 1...1000) else { return nil }
        // gpsd: "ignore gnssid and sigid if svid is zero".
        let svid = wholeNumber(report["svid"], in: 1...1000)
        let gnssid = wholeNumber(report["gnssid"], in: 0...7)
        var used = false
        if case .bool(let flag)? = report["used"] { used = flag }
        let health = report["health"]?.doubleValue
        self.init(
            prn: prn,
            constellation: svid != nil ? gnssid.flatMap(SkyView.Constellation.init(rawValue:)) : nil,
            satelliteID: svid,
            elevation: report["el"]?.doubleValue.flatMap { (-90...90).contains($0) ? $0 : nil },
            azimuth: report["az"]?.doubleValue.flatMap { (0...360).contains($0) ? $0 : nil },
            signalStrength: report["ss"]?.doubleValue.flatMap { (0...254).contains($0) ? $0 : nil },
            used: used,
            healthy: health == 1 ? true : health == 2 ? false : nil)
    }
}

/// A JSON number that is a whole number within `range`, else nil.
private func wholeNumber(_ value: JSONValue?, in range: ClosedRange<Int>) -> Int? {
    guard let number = value?.doubleValue, number == number.rounded(),
          number >= Double(range.lowerBound), number <= Double(range.upperBound)
    else { return nil }
    return Int(number)
}
