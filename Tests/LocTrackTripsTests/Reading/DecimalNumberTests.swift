@testable import LocTrackTrackFiles
import LocTrackTestSupport
import Testing

/// The numbers of GPX, TCX and KML (coordinates, speeds): read in place for the plain ones,
/// the same `Double` as `Double(String)` to the bit, and nothing for what is no number.
@Suite("Numbers in XML tracks", .timeLimit(.minutes(1)))
struct DecimalNumberTests {
    @Test("given plain decimals as track files write them when read then each is Double(String)'s value to the bit")
    func plainDecimalsAreExact() {
        var random = SplitMix64(seed: 34)
        for _ in 0..<20_000 {
            let whole = Int(random.uniform(0, 180)), decimals = Int(random.uniform(0, 12))
            var text = (random.uniform(0, 1) < 0.5 ? "-" : "") + "\(whole)"
            if decimals > 0 {
                text += "." + String((0..<decimals).map { _ in Character(String(Int(random.uniform(0, 10)))) })
            }
            #expect(decimalNumber(text)?.bitPattern == Double(text)?.bitPattern, "\(text)")
        }
    }

    @Test("given edge cases when read then blanks around are allowed, an exponent or a plus sign read the slow way, and what is no number is nil",
          arguments: [
            (" 52.5\n", 52.5), ("1.", 1.0), (".5", 0.5), ("-0", -0.0), ("0012.5000", 12.5), ("+5", 5.0), ("1e3", 1000.0),
            ("12345678901234567890.5", 12345678901234567890.5),
          ] as [(String, Double)])
    func edgeCases(text: String, value: Double) {
        #expect(decimalNumber(text)?.bitPattern == value.bitPattern)
    }

    @Test("given text that is no plain number when read then nil", arguments: ["", " ", "-", ".", "1.2.3", "nan", "inf", "1,5", "5 m", "0x10", "1e999"])
    func noNumbers(text: String) {
        #expect(decimalNumber(text) == nil)
    }
}
