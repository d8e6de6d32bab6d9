/// A generator that returns the values it was given, in turn: the backoff's jitter at the
/// ends of its range (``shortest``, ``longest``), so a test can state the exact delays and
/// their bounds.
///
/// Not 0 for the shortest: `random(in:using:)` draws by Lemire's method, which rejects a
/// draw whose product with the range's width has a low half below a threshold, and would
/// draw 0 again for ever. 2^32 times any width below 2^32 has a high half of 0 (the
/// lowest value) and a low half that is never rejected.
struct ScriptedJitter: RandomNumberGenerator {
    private let values: [UInt64]
    private var index = 0

    init(_ values: [UInt64]) {
        precondition(!values.isEmpty)
        self.values = values
    }

    /// Always the shortest delay of each step (half the step).
    static var shortest: ScriptedJitter { ScriptedJitter([1 << 32]) }
    /// Always the longest delay of each step (the step).
    static var longest: ScriptedJitter { ScriptedJitter([.max]) }

    mutating func next() -> UInt64 {
        defer { index = (index + 1) % values.count }
        return values[index]
    }
}
