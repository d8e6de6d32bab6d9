import LocTrackSystem

/// An event's id on the wire: `RUN-N` (docs/http.md). `RUN` names this run of `serve`
/// (random at start), so that an id a browser kept from an earlier run is never taken
/// for one of this run; `N` counts this run's events from 1 without gaps, so a larger `N`
/// is a later event and a client's `Last-Event-ID` says exactly what it has.
package struct EventID: Sendable, Hashable, CustomStringConvertible {
    /// Lowercase hexadecimal digits.
    package let run: String
    /// 0 before the first event: "nothing yet", so `after=RUN-0` replays from event 1.
    package let sequence: UInt64

    package init(run: String, sequence: UInt64) {
        self.run = run
        self.sequence = sequence
    }

    package var description: String { "\(run)-\(sequence)" }

    /// Reads `RUN-N` as this server writes it: 1 to 32 lowercase hexadecimal digits, `-`,
    /// and 1 to 19 decimal digits. Anything else is nil: docs/http.md treats a bad
    /// `Last-Event-ID` as none.
    package init?(parsing text: some StringProtocol) {
        let bytes = Array(text.utf8)
        guard let dash = bytes.firstIndex(of: UInt8(ascii: "-")), (1...32).contains(dash),
              bytes[..<dash].allSatisfy(Self.isLowercaseHexDigit)
        else { return nil }
        let digits = bytes[(dash + 1)...]
        guard (1...19).contains(digits.count), digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        var sequence: UInt64 = 0
        for digit in digits { sequence = sequence * 10 + UInt64(digit - 0x30) }
        self.init(run: String(decoding: bytes[..<dash], as: UTF8.self), sequence: sequence)
    }

    /// A new run's name: 8 hexadecimal digits from the kernel's random source (one in four
    /// billion that two runs share it). Without a random source (which Linux always has
    /// since 3.17), the wall clock's seconds and the process's monotonic time stand in.
    package static func newRun() -> String {
        let bytes = (try? randomBytes(4))
            ?? withUnsafeBytes(of: UInt32(truncatingIfNeeded: wallClockSeconds() &* 1_000_003 &+ Monotonic.milliseconds)) { Array($0) }
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func isLowercaseHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}
