/// A UTC instant with nanosecond resolution, as gpsd's receivers report it.
///
/// loctrack avoids Foundation (it costs megabytes of resident memory on Linux),
/// so this is its own small value type. With Foundation:
/// `Date(timeIntervalSince1970: fix.time.secondsSince1970)`.
public struct Timestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Whole seconds since 1970-01-01T00:00:00Z.
    public let seconds: Int64
    /// Nanoseconds within the second, 0 ..< 1,000,000,000.
    public let nanoseconds: Int32

    public init(seconds: Int64, nanoseconds: Int32 = 0) {
        let carry = Int64(nanoseconds) / 1_000_000_000
        var nanos = Int64(nanoseconds) % 1_000_000_000
        var secs = seconds + carry
        if nanos < 0 {
            nanos += 1_000_000_000
            secs -= 1
        }
        self.seconds = secs
        self.nanoseconds = Int32(nanos)
    }

    /// Seconds since 1970 as a floating-point number.
    public var secondsSince1970: Double { Double(seconds) + Double(nanoseconds) / 1e9 }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
    }

    /// The time from `other` to `self`, in seconds.
    public func seconds(since other: Timestamp) -> Double {
        Double(seconds - other.seconds) + Double(nanoseconds - other.nanoseconds) / 1e9
    }

    /// ISO 8601 in UTC with milliseconds, as gpsd writes it: `2026-11-22T04:25:03.240Z`.
    public var iso8601: String {
        let (year, month, day) = Self.civilDate(daysSince1970: seconds.floorDivided(by: 86_400))
        let secondOfDay = seconds - seconds.floorDivided(by: 86_400) * 86_400
        var text = ""
        text.reserveCapacity(24)
        text.appendPadded(year, width: 4)
        text.append("-")
        text.appendPadded(month, width: 2)
        text.append("-")
        text.appendPadded(day, width: 2)
        text.append("T")
        text.appendPadded(secondOfDay / 3600, width: 2)
        text.append(":")
        text.appendPadded(secondOfDay / 60 % 60, width: 2)
        text.append(":")
        text.appendPadded(secondOfDay % 60, width: 2)
        text.append(".")
        text.appendPadded(Int64(nanoseconds / 1_000_000), width: 3)
        text.append("Z")
        return text
    }

    public var description: String { iso8601 }

    /// The UTC calendar fields of ``iso8601``, for writers that format bytes themselves.
    package var utcFields: (year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64, millisecond: Int64) {
        let (year, month, day) = Self.civilDate(daysSince1970: seconds.floorDivided(by: 86_400))
        let secondOfDay = seconds - seconds.floorDivided(by: 86_400) * 86_400
        return (year, month, day, secondOfDay / 3600, secondOfDay / 60 % 60, secondOfDay % 60, Int64(nanoseconds / 1_000_000))
    }

    /// Parses gpsd's ISO 8601 UTC form, `YYYY-MM-DDTHH:MM:SS[.fff…]Z`.
    public init?(iso8601 text: some StringProtocol) {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[range] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            return value
        }
        guard bytes.count >= 20, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54,
              bytes[13] == 0x3A, bytes[16] == 0x3A, bytes.last == 0x5A,
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var nanos: Int64 = 0
        if bytes[19] == 0x2E {
            let digits = bytes[20..<(bytes.count - 1)]
            guard !digits.isEmpty, digits.count <= 9 else { return nil }
            guard let fraction = number(20..<(bytes.count - 1)) else { return nil }
            nanos = fraction
            for _ in digits.count..<9 { nanos *= 10 }
        } else if bytes.count != 20 {
            return nil
        }
        let days = Self.daysSince1970(year: year, month: month, day: day)
        self.init(seconds: days * 86_400 + hour * 3600 + minute * 60 + second, nanoseconds: Int32(nanos))
    }

    // Howard Hinnant's civil-from-days and days-from-civil, exact for the proleptic Gregorian calendar.
    static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = z.floorDivided(by: 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = y.floorDivided(by: 400)
        let yearOfEra = y - era * 400
        let mp = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * mp + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}

extension String {
    fileprivate mutating func appendPadded(_ value: Int64, width: Int) {
        let digits = String(value)
        if digits.count < width { append(String(repeating: "0", count: width - digits.count)) }
        append(digits)
    }
}
