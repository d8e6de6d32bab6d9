import LocTrack

/// RFC 3339 date-times, as `since=` takes them: `2026-11-24T08:00:00Z`,
/// `2026-11-24T09:00:00.5+01:00`. Lowercase `t` and `z` are allowed (RFC 3339 §5.6), and
/// so is a space for the `T` (its note there). A leap second (`:60`) counts as the next
/// second's start.
enum RFC3339 {
    static func timestamp(_ text: some StringProtocol) -> Timestamp? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20 else { return nil }
        func digits(_ range: Range<Int>) -> Bool {
            range.upperBound <= bytes.count && bytes[range].allSatisfy { (0x30...0x39).contains($0) }
        }
        let separator = bytes[10]
        guard digits(0..<4), bytes[4] == 0x2D, digits(5..<7), bytes[7] == 0x2D, digits(8..<10),
              separator == 0x54 || separator == 0x74 || separator == 0x20,
              digits(11..<13), bytes[13] == 0x3A, digits(14..<16), bytes[16] == 0x3A, digits(17..<19)
        else { return nil }
        // The fraction, if any, ends where the offset begins.
        var end = 19
        if bytes[19] == 0x2E {
            end = 20
            while end < bytes.count, (0x30...0x39).contains(bytes[end]) { end += 1 }
            guard end > 20 else { return nil }
        }
        let offsetSeconds: Int64
        let offset = bytes[end...]
        if offset.count == 1, offset.first == 0x5A || offset.first == 0x7A {
            offsetSeconds = 0
        } else if offset.count == 6, offset.first == 0x2B || offset.first == 0x2D, digits((end + 1)..<(end + 3)),
                  bytes[end + 3] == 0x3A, digits((end + 4)..<(end + 6)) {
            let hours = Int64(bytes[end + 1] - 0x30) * 10 + Int64(bytes[end + 2] - 0x30)
            let minutes = Int64(bytes[end + 4] - 0x30) * 10 + Int64(bytes[end + 5] - 0x30)
            guard hours < 24, minutes < 60 else { return nil }
            offsetSeconds = (hours * 3600 + minutes * 60) * (offset.first == 0x2D ? -1 : 1)
        } else {
            return nil
        }
        // gpsd's form, which Timestamp reads: at most 9 digits of fraction, seconds below 61.
        var leap = false
        var utc = Array(bytes[0..<19])
        utc[10] = 0x54
        if utc[17] == 0x36, utc[18] == 0x30 {
            leap = true
            utc[17] = 0x35
            utc[18] = 0x39
        }
        if end > 19 { utc += bytes[19..<min(end, 29)] }
        utc.append(0x5A)
        guard let local = Timestamp(iso8601: String(decoding: utc, as: UTF8.self)) else { return nil }
        guard Self.isRealDate(bytes) else { return nil }
        return Timestamp(seconds: local.seconds - offsetSeconds + (leap ? 1 : 0), nanoseconds: leap ? 0 : local.nanoseconds)
    }

    /// Whether the day exists in its month (Timestamp only checks 1...31).
    private static func isRealDate(_ bytes: [UInt8]) -> Bool {
        func number(_ range: Range<Int>) -> Int { bytes[range].reduce(0) { $0 * 10 + Int($1 - 0x30) } }
        let year = number(0..<4)
        let month = number(5..<7)
        let day = number(8..<10)
        let leapYear = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let lengths = [31, leapYear ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return (1...12).contains(month) && (1...lengths[month - 1]).contains(day)
    }
}
