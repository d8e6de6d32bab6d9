import Glibc

/// A small, fast, seedable generator (Vigna's SplitMix64), so that every generated drive
/// is the same on every machine and a failing one can be replayed from its seed. Shared by
/// every test target that generates data (drives, fuzzed input).
package struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension SplitMix64 {
    /// A number in `low..<high`, from the top 53 bits (every value equally likely).
    package mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * Double(next() >> 11) / Double(UInt64(1) << 53)
    }

    /// A normally distributed number (Box-Muller; the second value is dropped to keep the
    /// stream simple to reason about).
    package mutating func gaussian(_ sigma: Double) -> Double {
        let u1 = max(uniform(0, 1), .leastNormalMagnitude)
        let u2 = uniform(0, 1)
        return sigma * (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
