package import LocTrack

/// The times track files hold: ISO 8601 / RFC 3339 date-times in UTC or with an offset.
///
/// loctrack writes gpsd's form, `2026-11-23T08:14:03.000Z`; other programs write
/// `2026-11-23T08:14:03Z`, `2026-11-23T09:14:03.5+01:00`, `…+0100`, or no zone at all
/// (GPX says UTC: taken as UTC). A space for the `T`, a lower-case `t` or `z`, and any
/// number of fraction digits (beyond nine are cut) are accepted; a leap second (`:60`)
/// counts as the next second's start.
package enum RecordedTime {
    package static func timestamp(_ text: some StringProtocol) -> Timestamp? {
        var reader = Reader()
        return reader.timestamp(text)
    }

    /// Reads the times of one file, one after another, in place. A track's times share their
    /// date for hours on end, so the midnight of the last date read is kept: the calendar
    /// arithmetic (``Timestamp``'s own) runs once a day of the track, not once a point.
    package struct Reader {
        /// The bytes of the last date read (`2026-11-23`) and its midnight.
        private var lastDate: (UInt64, UInt16)?
        private var lastMidnight = Timestamp(seconds: 0)

        package init() {}

        package mutating func timestamp(_ text: some StringProtocol) -> Timestamp? {
            let utf8 = text.utf8
            if let time = utf8.withContiguousStorageIfAvailable({ timestamp(UnsafeRawBufferPointer($0)) }) { return time }
            return Array(utf8).withUnsafeBytes { timestamp($0) }
        }

        /// The time `text` (UTF-8) says, with blanks (space, tab, CR, LF) around it allowed.
        package mutating func timestamp(_ text: UnsafeRawBufferPointer) -> Timestamp? {
            var first = 0
            var last = text.count
            while first < last, isBlank(text[first]) { first += 1 }
            while last > first, isBlank(text[last - 1]) { last -= 1 }
            let bytes = UnsafeRawBufferPointer(rebasing: text[first..<last])
            guard bytes.count >= 19 else { return nil }
            func isDigit(_ index: Int) -> Bool { index < bytes.count && (0x30...0x39).contains(bytes[index]) }
            func number(_ range: Range<Int>) -> Int64 { bytes[range].reduce(0) { $0 * 10 + Int64($1 - 0x30) } }
            let separator = bytes[10]
            guard (0..<4).allSatisfy(isDigit), bytes[4] == 0x2D, isDigit(5), isDigit(6), bytes[7] == 0x2D, isDigit(8), isDigit(9),
                  separator == 0x54 || separator == 0x74 || separator == 0x20, isDigit(11), isDigit(12), bytes[13] == 0x3A,
                  isDigit(14), isDigit(15), bytes[16] == 0x3A, isDigit(17), isDigit(18)
            else { return nil }
            var end = 19
            var nanoseconds: Int64 = 0
            if end < bytes.count, bytes[end] == 0x2E || bytes[end] == 0x2C {
                end += 1
                let digitsStart = end
                while isDigit(end) { end += 1 }
                guard end > digitsStart else { return nil }
                for index in digitsStart..<(digitsStart + 9) {
                    nanoseconds = nanoseconds * 10 + (index < end ? Int64(bytes[index] - 0x30) : 0)
                }
            }
            guard let offset = RecordedTime.offsetSeconds(bytes[end...]) else { return nil }
            let year = number(0..<4), month = number(5..<7), day = number(8..<10)
            let hour = number(11..<13), minute = number(14..<16), second = number(17..<19)
            guard (1...12).contains(month), (1...RecordedTime.daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60,
                  second <= 60, let midnight = midnight(of: bytes)
            else { return nil }
            let seconds = midnight.seconds + hour * 3600 + minute * 60 + second - offset
            return Timestamp(seconds: seconds, nanoseconds: second == 60 ? 0 : Int32(nanoseconds))
        }

        /// The midnight (UTC) of the date `bytes` start with, checked already.
        private mutating func midnight(of bytes: UnsafeRawBufferPointer) -> Timestamp? {
            let date = (bytes.loadUnaligned(as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 8, as: UInt16.self))
            if let lastDate, lastDate == date { return lastMidnight }
            // Timestamp reads gpsd's form: the calendar arithmetic is its own.
            var utc = Array(bytes[0..<10]) + Array("T00:00:00Z".utf8)
            utc[10] = 0x54
            guard let midnight = Timestamp(iso8601: String(decoding: utc, as: UTF8.self)) else { return nil }
            lastDate = date
            lastMidnight = midnight
            return midnight
        }

        private func isBlank(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
        }
    }

    /// `Z`, `±HH:MM`, `±HHMM`, `±HH`, or nothing (UTC), as seconds east of UTC.
    fileprivate static func offsetSeconds(_ zone: Slice<UnsafeRawBufferPointer>) -> Int64? {
        guard let sign = zone.first else { return 0 }
        if zone.count == 1, sign == 0x5A || sign == 0x7A { return 0 }
        guard sign == 0x2B || sign == 0x2D else { return nil }
        var digits = Array(zone.dropFirst())
        if digits.count == 5, digits[2] == 0x3A { digits.remove(at: 2) }
        guard digits.count == 2 || digits.count == 4, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let hours = Int64(digits[0] - 0x30) * 10 + Int64(digits[1] - 0x30)
        let minutes = digits.count == 4 ? Int64(digits[2] - 0x30) * 10 + Int64(digits[3] - 0x30) : 0
        guard hours < 24, minutes < 60 else { return nil }
        return (hours * 3600 + minutes * 60) * (sign == 0x2D ? -1 : 1)
    }

    fileprivate static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
