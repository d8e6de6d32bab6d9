/// The `class` of a gpsd JSON report, read from the raw line without parsing it.
///
/// gpsd writes `{"class":"TPV",…` with the class first; libgps itself matches
/// classes by exact text, so a prefix test is as strict as libgps and lets
/// loctrack skip parsing reports nobody needs (SKY is most of the bytes).
enum ReportClass: Equatable {
    case tpv, sky, version, error, device, devices, watch, poll
    /// A gpsd report of a class loctrack does not use (GST, RAW, ATT, PPS, …).
    case other
    /// A `{"class":"…"` that gpsd 3.22 never sends.
    case unknown
    /// Not a gpsd report at all: no `{"class":"…"` at the start.
    case notAReport

    init(line: UnsafePointer<CChar>, length: Int) {
        // `{"class":"` is 10 bytes; the class name follows up to the next quote.
        let prefix: StaticString = "{\"class\":\""
        let prefixLength = prefix.utf8CodeUnitCount
        guard length > prefixLength + 1 else {
            self = .notAReport
            return
        }
        let matchesPrefix = prefix.withUTF8Buffer { expected in
            (0..<prefixLength).allSatisfy { UInt8(bitPattern: line[$0]) == expected[$0] }
        }
        guard matchesPrefix else {
            self = .notAReport
            return
        }
        var nameEnd = prefixLength
        while nameEnd < length, line[nameEnd] != 0x22 { nameEnd += 1 }
        guard nameEnd < length, nameEnd > prefixLength else {
            self = .notAReport
            return
        }
        let name = UnsafeRawBufferPointer(start: line + prefixLength, count: nameEnd - prefixLength)
        let unused = ["GST", "ATT", "IMU", "TOFF", "PPS", "OSC", "AIS", "RAW", "RTCM2", "RTCM3", "SUBFRAME"]
        switch name.count {
        case 3:
            if Self.matches(name, "TPV") { self = .tpv } else if Self.matches(name, "SKY") { self = .sky } else { self = .other }
        case 4:
            self = Self.matches(name, "POLL") ? .poll : .other
        case 5:
            if Self.matches(name, "ERROR") { self = .error } else if Self.matches(name, "WATCH") { self = .watch } else { self = .other }
        case 6:
            self = Self.matches(name, "DEVICE") ? .device : .other
        case 7:
            if Self.matches(name, "VERSION") { self = .version } else if Self.matches(name, "DEVICES") { self = .devices } else { self = .other }
        default:
            self = .other
        }
        if self == .other, !unused.contains(where: { name.elementsEqual($0.utf8) }) { self = .unknown }
    }

    /// Compares with the literal's bytes: `elementsEqual("TPV".utf8)` runs String's
    /// UTF-8 view code, touched by every report.
    private static func matches(_ name: UnsafeRawBufferPointer, _ literal: StaticString) -> Bool {
        literal.withUTF8Buffer { name.elementsEqual($0) }
    }
}
