import LocTrack
import LocTrackSystem

/// ``JSONRecord``'s reading of the lines ``FlatJSONLine`` takes, without a tree: a day at 1 Hz
/// is 86,400 TPV lines of 330 bytes, and a tree of each (a String per name and value, a
/// `Double(String)` per number) cost 100,000 instructions a line.
///
/// It decides what ``JSONRecord/outcome(of:)`` would (the same checks in the same order, on
/// the same values) for a TPV line, a GeoJSON Feature of one and an OwnTracks location, and
/// only when the outcome is a point or no position. Everything else (an unreadable value,
/// whose message the tree's reading words, an object that is no fix) is nil: the line goes to
/// the tree.
///
/// One per file: it keeps the last date's midnight and the last device's name.
struct FlatJSONRecords {
    private var names = FlatJSONLine.NameStore()
    private var times = RecordedTime.Reader()
    private var lastDevice: (bytes: [UInt8], name: String)?

    /// The outcome of `line` (without its newline), or nil when the tree is to read it.
    mutating func outcome(of line: UnsafeRawBufferPointer) -> RecordOutcome? {
        guard let scanned = names.members(of: line) else { return nil }
        let members = scanned.members
        if let kind = members.reportClass {
            guard isString(kind, "TPV", in: line) else { return .notAPosition }
            return tpv(members, in: line)
        }
        if let type = members.type, isString(type, "Feature", in: line) {
            // A Feature whose properties are no TPV is unreadable: the tree words why.
            guard let properties = scanned.properties, let kind = properties.reportClass, isString(kind, "TPV", in: line) else {
                return nil
            }
            return tpv(properties, in: line)
        }
        if members.type != nil { return nil }  // the tree decides what other types are
        if let type = members.ownTracksType {
            guard isString(type, "location", in: line) else { return .notAPosition }
            return ownTracksLocation(members, in: line)
        }
        return nil
    }

    private mutating func tpv(_ report: FlatJSONLine.Members, in line: UnsafeRawBufferPointer) -> RecordOutcome? {
        let mode = report.mode.flatMap { number($0, in: line) }
        if let mode, mode < 2 { return .notAPosition }
        guard let timeValue = report.time, let latitudeValue = report.latitude, let longitudeValue = report.longitude else {
            return .notAPosition
        }
        guard timeValue.kind == .string, let time = times.timestamp(text(timeValue, in: line)),
              let latitude = number(latitudeValue, in: line), let longitude = number(longitudeValue, in: line)
        else { return nil }
        return .checked(
            time: time, latitude: latitude, longitude: longitude, speed: report.speed.flatMap { number($0, in: line) },
            horizontalError: report.horizontalError.flatMap { number($0, in: line) },
            device: report.device.flatMap { device($0, in: line) },
            altitudeMSL: report.altitudeMSL.flatMap { number($0, in: line) },
            altitudeHAE: report.altitudeHAE.flatMap { number($0, in: line) }, isThreeD: mode == 3,
            isDGPS: report.status.flatMap { number($0, in: line) } == 2)
    }

    private func ownTracksLocation(_ message: FlatJSONLine.Members, in line: UnsafeRawBufferPointer) -> RecordOutcome? {
        guard let seconds = message.seconds.flatMap({ number($0, in: line) }).flatMap({ JSONValue.number($0).integerValue }),
              let latitude = message.latitude.flatMap({ number($0, in: line) }),
              let longitude = message.longitude.flatMap({ number($0, in: line) })
        else { return nil }
        let altitude = message.ownTracksAltitude.flatMap { number($0, in: line) }
        return .checked(
            time: Timestamp(seconds: Int64(seconds)), latitude: latitude, longitude: longitude,
            speed: message.velocity.flatMap { number($0, in: line) }.map { $0 / 3.6 },
            horizontalError: message.accuracy.flatMap { number($0, in: line) }, device: nil, altitudeMSL: altitude,
            isThreeD: altitude != nil)
    }

    /// The value's number, nil when it is not a number (as `JSONValue.doubleValue`).
    private func number(_ value: FlatJSONLine.Scalar, in line: UnsafeRawBufferPointer) -> Double? {
        guard value.kind == .number else { return nil }
        return JSONNumberText.value(text(value, in: line))
    }

    /// The value's string, the last device's name again when it has the same bytes (a file
    /// names one device or a few, line after line).
    private mutating func device(_ value: FlatJSONLine.Scalar, in line: UnsafeRawBufferPointer) -> String? {
        guard value.kind == .string else { return nil }
        let bytes = text(value, in: line)
        if let lastDevice, lastDevice.bytes.count == bytes.count,
           lastDevice.bytes.withUnsafeBytes({ bytes.isEmpty || bytesEqual($0.baseAddress!, bytes.baseAddress!, bytes.count) }) {
            return lastDevice.name
        }
        let name = String(decoding: bytes, as: UTF8.self)  // ASCII: FlatJSONLine takes no other strings
        lastDevice = (Array(bytes), name)
        return name
    }

    private func isString(_ value: FlatJSONLine.Scalar, _ expected: StaticString, in line: UnsafeRawBufferPointer) -> Bool {
        value.kind == .string && value.end - value.start == expected.utf8CodeUnitCount
            && bytesEqual(line.baseAddress! + value.start, expected.utf8Start, expected.utf8CodeUnitCount)
    }

    private func text(_ value: FlatJSONLine.Scalar, in line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: line[value.start..<value.end])
    }
}
