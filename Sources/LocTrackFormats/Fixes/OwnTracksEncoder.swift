package import LocTrack

/// OwnTracks `location` messages, one per line, as the OwnTracks apps publish them, so an
/// OwnTracks Recorder or Home Assistant's OwnTracks integration takes them as they are:
///
/// `{"_type":"location","lat":52.5162900,"lon":13.3776500,"tst":1795000103,"acc":4,"alt":34,"vac":6,"vel":9,"cog":87,"tid":"pi"}`
///
/// `lat`/`lon` in degrees with 7 decimals; `tst` the fix's time in whole Unix seconds;
/// `acc` gpsd's `eph` in whole metres, at least 1; `alt` `altMSL` and `vac` `epv` in
/// whole metres; `vel` the speed in whole km/h; `cog` the course in whole degrees (0 to
/// 359). A value that is not known is left out: a fix without `eph` has no `acc` (it is
/// still a position; Home Assistant ignores locations without `acc`, the Recorder keeps them).
package struct OwnTracksEncoder: FixEncoder {
    /// The tracker id, the initials a map shows for this device.
    package let trackerID: String

    /// The first two letters or digits of the host name, lowercase (`Pi4-garage` is `pi`);
    /// `lt` when it has none: the tracker id when `--tid` is not given.
    package static func defaultTrackerID(hostName: String = HostName.current()) -> String {
        let characters = hostName.filter { ($0.isASCII && $0.isLetter) || ($0.isASCII && $0.isNumber) }.prefix(2).lowercased()
        return characters.isEmpty ? "lt" : characters
    }

    /// `--tid` when given, else ``defaultTrackerID(hostName:)``.
    package static func trackerID(given: String?) -> String {
        given ?? defaultTrackerID()
    }

    package mutating func encode(_ fix: Fix) -> String {
        var bytes = OutputBytes(reservingCapacity: 160)
        encode(fix, into: &bytes)
        return String(decoding: bytes.bytes, as: UTF8.self)
    }

    package mutating func encode(_ fix: Fix, into line: inout OutputBytes) {
        line.append("{\"_type\":\"location\",\"lat\":")
        line.appendFixed(fix.latitude, decimals: 7)
        line.append(",\"lon\":")
        line.appendFixed(fix.longitude, decimals: 7)
        line.append(",\"tst\":")
        line.append(Int(fix.time.seconds))
        append("acc", Self.accuracy(fix), to: &line)
        append("alt", fix.altitudeMSL.flatMap(Self.whole), to: &line)
        append("vac", fix.verticalError.flatMap(Self.whole), to: &line)
        append("vel", fix.speed.flatMap { Self.whole($0 * 3.6) }, to: &line)
        append("cog", fix.track.flatMap(Self.whole).map { $0 % 360 }, to: &line)
        line.append(",\"tid\":\"")
        line.append(JSONText.escaped(trackerID))
        line.append("\"}\n")
    }

    private func append(_ name: StaticString, _ value: Int?, to line: inout OutputBytes) {
        guard let value else { return }
        line.append(",\"")
        line.append(name)
        line.append("\":")
        line.append(value)
    }

    /// OwnTracks' `acc` for `fix`: its `eph` in whole metres, rounded half away from zero
    /// but at least 1 (Home Assistant drops a message whose `acc` is 0); nil without a
    /// finite `eph`.
    package static func accuracy(_ fix: Fix) -> Int? {
        fix.horizontalError.flatMap(whole).map { max(1, $0) }
    }

    /// `value` rounded half away from zero (9.5 is 10); nil when it is not a finite number.
    private static func whole(_ value: Double) -> Int? {
        guard value.isFinite, value.magnitude < 1e15 else { return nil }
        return Int(value.rounded())
    }
}
