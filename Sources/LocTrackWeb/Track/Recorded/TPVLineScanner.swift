import LocTrack
import LocTrackDistance

/// The track values of one recorded line: a TPV object as `stream --format json` writes it,
/// or a GeoJSON Feature whose `properties` are one (`--format geojson`). Anything else (an
/// OwnTracks line, a torn line, text) is nil.
///
/// A scan, not a parse into a tree: a day at 1 Hz is 86,400 lines read at start-up, and
/// building a `JSONValue` with a String per member for each was most of that time. It
/// walks the members of the object (and of `properties`), skips the values it does not
/// need, and reads the numbers it needs in place.
struct TPVLineScanner {
    private let bytes: ArraySlice<UInt8>
    private var index: Int

    private struct Fields {
        var isTPV = false
        var time: Timestamp?
        var latitude: Double?
        var longitude: Double?
        var mode: Double?
        var status: Double?
        var horizontalError: Double?
        var altitudeHAE: Double?
        var altitudeMSL: Double?
        var speed: Double?
    }

    /// Deeper nesting is not a line loctrack wrote.
    private static let maximumDepth = 16

    private init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        index = bytes.startIndex
    }

    /// The point of `line` (without its newline), or nil when it is not a fix.
    static func point(_ line: ArraySlice<UInt8>) -> TrackPoint? {
        fix(line)?.point
    }

    /// The track's point of `line` and the fix as the odometer takes it (with its speed),
    /// or nil when it is not a fix.
    static func fix(_ line: ArraySlice<UInt8>) -> (point: TrackPoint, travel: LocTrackDistance.TrackPoint)? {
        var scanner = TPVLineScanner(line)
        var fields = Fields()
        scanner.skipWhitespace()
        guard scanner.readObject(into: &fields, depth: 0) else { return nil }
        scanner.skipWhitespace()
        guard scanner.index == line.endIndex, fields.isTPV, let time = fields.time,
              let latitude = fields.latitude, let longitude = fields.longitude,
              (-90...90).contains(latitude), (-180...180).contains(longitude),
              fields.mode == 2 || fields.mode == 3
        else { return nil }
        let point = TrackPoint(
            time: time.seconds * 1000 + Int64(time.nanoseconds / 1_000_000), latitude: latitude, longitude: longitude,
            horizontalError: fields.horizontalError, altitudeMSL: fields.altitudeMSL, altitudeHAE: fields.altitudeHAE,
            isThreeD: fields.mode == 3, isDGPS: fields.status == 2)
        let travel = LocTrackDistance.TrackPoint(
            time: time, latitude: latitude, longitude: longitude, speed: fields.speed,
            horizontalError: fields.horizontalError)
        return (point, travel)
    }

    // MARK: Structure

    /// An object, taking the members it knows into `fields` (and those of `properties`).
    private mutating func readObject(into fields: inout Fields, depth: Int) -> Bool {
        guard depth < Self.maximumDepth, take(0x7B) else { return false }
        skipWhitespace()
        if take(0x7D) { return true }
        while true {
            skipWhitespace()
            guard let key = readString() else { return false }
            skipWhitespace()
            guard take(0x3A) else { return false }
            skipWhitespace()
            guard read(key, into: &fields, depth: depth) else { return false }
            skipWhitespace()
            if take(0x2C) { continue }
            return take(0x7D)
        }
    }

    /// The value of member `key`: read when it is one of the fields, else skipped.
    private mutating func read(_ key: ArraySlice<UInt8>, into fields: inout Fields, depth: Int) -> Bool {
        switch Key(key) {
        case .properties where peek == 0x7B:
            return readObject(into: &fields, depth: depth + 1)
        case .class:
            guard let value = readString() else { return false }
            fields.isTPV = value.elementsEqual("TPV".utf8)
            return true
        case .time:
            guard let value = readString() else { return false }
            fields.time = Timestamp(iso8601: String(decoding: value, as: UTF8.self))
            return true
        case .lat: return readNumber(&fields.latitude)
        case .lon: return readNumber(&fields.longitude)
        case .mode: return readNumber(&fields.mode)
        case .status: return readNumber(&fields.status)
        case .eph: return readNumber(&fields.horizontalError)
        case .altHAE: return readNumber(&fields.altitudeHAE)
        case .altMSL: return readNumber(&fields.altitudeMSL)
        case .speed: return readNumber(&fields.speed)
        case .properties, .other: return skipValue(depth: depth + 1)
        }
    }

    private enum Key {
        case properties, `class`, time, lat, lon, mode, status, eph, altHAE, altMSL, speed, other

        init(_ bytes: ArraySlice<UInt8>) {
            // By length first: most members are none of these.
            switch bytes.count {
            case 3 where bytes.elementsEqual("lat".utf8): self = .lat
            case 3 where bytes.elementsEqual("lon".utf8): self = .lon
            case 3 where bytes.elementsEqual("eph".utf8): self = .eph
            case 4 where bytes.elementsEqual("time".utf8): self = .time
            case 4 where bytes.elementsEqual("mode".utf8): self = .mode
            case 5 where bytes.elementsEqual("class".utf8): self = .class
            case 5 where bytes.elementsEqual("speed".utf8): self = .speed
            case 6 where bytes.elementsEqual("status".utf8): self = .status
            case 6 where bytes.elementsEqual("altHAE".utf8): self = .altHAE
            case 6 where bytes.elementsEqual("altMSL".utf8): self = .altMSL
            case 10 where bytes.elementsEqual("properties".utf8): self = .properties
            default: self = .other
            }
        }
    }

    private mutating func skipValue(depth: Int) -> Bool {
        guard depth < Self.maximumDepth, let first = peek else { return false }
        switch first {
        case 0x22:
            return readString() != nil
        case 0x7B, 0x5B:
            index += 1
            let close: UInt8 = first == 0x7B ? 0x7D : 0x5D
            skipWhitespace()
            if take(close) { return true }
            while true {
                skipWhitespace()
                if first == 0x7B {
                    guard readString() != nil else { return false }
                    skipWhitespace()
                    guard take(0x3A) else { return false }
                    skipWhitespace()
                }
                guard skipValue(depth: depth + 1) else { return false }
                skipWhitespace()
                if take(0x2C) { continue }
                return take(close)
            }
        default:
            // A number or a literal: up to the next delimiter.
            let start = index
            while let byte = peek, byte != 0x2C, byte != 0x7D, byte != 0x5D, !Self.isWhitespace(byte) { index += 1 }
            return index > start
        }
    }

    // MARK: Tokens

    /// A string's bytes between its quotes, escapes left as they are (the keys and values
    /// read here have none; a value with escapes is only compared or skipped).
    private mutating func readString() -> ArraySlice<UInt8>? {
        guard take(0x22) else { return nil }
        let start = index
        while index < bytes.endIndex {
            switch bytes[index] {
            case 0x22:
                defer { index += 1 }
                return bytes[start..<index]
            case 0x5C:
                index += 2
            case 0..<0x20:
                return nil
            default:
                index += 1
            }
        }
        return nil
    }

    /// A JSON number into `value`: exact for up to 15 significant digits without an
    /// exponent (an integer over a power of ten, both exact, divides with one rounding:
    /// the nearest double, as `Double(String)` gives); other forms go through `Double(String)`.
    private mutating func readNumber(_ value: inout Double?) -> Bool {
        let start = index
        var negative = false
        if peek == 0x2D {
            negative = true
            index += 1
        }
        var mantissa: Int64 = 0
        var digits = 0
        var fractionDigits = 0
        var seenPoint = false
        var simple = true
        while let byte = peek {
            if (0x30...0x39).contains(byte) {
                // 15 digits, leading zeros included, stay below 2^53: exact in a Double.
                if digits < 15 {
                    mantissa = mantissa * 10 + Int64(byte - 0x30)
                    digits += 1
                    if seenPoint { fractionDigits += 1 }
                } else {
                    simple = false
                }
                index += 1
            } else if byte == 0x2E, !seenPoint {
                seenPoint = true
                index += 1
            } else if byte == 0x65 || byte == 0x45 || byte == 0x2B || byte == 0x2D {
                simple = false
                index += 1
            } else {
                break
            }
        }
        guard index > start + (negative ? 1 : 0) else { return false }
        if simple {
            let magnitude = Double(mantissa) / Self.powersOfTen[fractionDigits]
            value = negative ? -magnitude : magnitude
        } else {
            value = Double(String(decoding: bytes[start..<index], as: UTF8.self))
        }
        return value.map { $0.isFinite } ?? false
    }

    private static let powersOfTen: [Double] = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15]

    private var peek: UInt8? { index < bytes.endIndex ? bytes[index] : nil }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while let byte = peek, Self.isWhitespace(byte) { index += 1 }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
