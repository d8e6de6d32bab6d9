import LocTrackSystem

/// Fixed-point decimal text, digit for digit as C's `printf("%.*f")` writes it
/// (gpsd formats its JSON with printf, so values read from gpsd come back as
/// gpsd wrote them).
///
/// The common case is integer arithmetic on the value scaled by 10^decimals:
/// values that came from gpsd's text are near an integer once scaled, so
/// rounding them is exact. Going through printf for every field costs a
/// dynamic cast per argument (`CVarArg`), which was a fifth of loctrack's CPU
/// in a flood; printf remains for magnitudes beyond 2^53 once scaled and for
/// values within rounding error of a half.
package enum FixedPoint {
    package static let powersOfTen: [Double] = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12]

    /// The digits of `value` rounded to `decimals` places, or nil where printf must decide.
    package static func parts(of value: Double, decimals: Int) -> (isNegative: Bool, integer: UInt64, fraction: UInt64)? {
        let scale = powersOfTen[min(max(decimals, 0), powersOfTen.count - 1)]
        let raw = value.magnitude * scale
        let scaled = raw.rounded(.toNearestOrEven)
        // Near a half the product's rounding error could pick the other neighbour: ask printf,
        // which rounds the exact binary value.
        let nearHalf = abs(raw - raw.rounded(.down) - 0.5) <= raw * 1e-15 + 1e-9
        guard value.isFinite, scaled < 9.0e15, !nearHalf else { return nil }
        let units = UInt64(scaled)
        let divisor = UInt64(scale)
        // printf writes -0.000 for -0.0001: the sign stays.
        return (value.sign == .minus, units / divisor, units % divisor)
    }

    package static func printf(_ value: Double, decimals: Int) -> String {
        formatFixed(value, decimals: decimals)
    }
}

extension String {
    /// Appends `value` with exactly `decimals` digits after the point, as printf's `%.*f` writes it.
    package mutating func appendFixed(_ value: Double, decimals: Int) {
        var bytes = OutputBytes(reservingCapacity: 24)
        bytes.appendFixed(value, decimals: decimals)
        append(String(decoding: bytes.bytes, as: UTF8.self))
    }
}
