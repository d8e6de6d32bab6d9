/// A generator that returns the values it was given, in turn: the backoff's jitter at the
/// ends of its range (0: the shortest delay, `UInt64.max`: the longest), so a test can
/// state the exact delays and their bounds.
struct ScriptedJitter: RandomNumberGenerator {
    private let values: [UInt64]
    private var index = 0

    init(_ values: [UInt64]) {
        precondition(!values.isEmpty)
        self.values = values
    }

    /// Always the shortest delay of each step (half the step).
    static var shortest: ScriptedJitter { ScriptedJitter([0]) }
    /// Always the longest delay of each step (the step).
    static var longest: ScriptedJitter { ScriptedJitter([.max]) }

    mutating func next() -> UInt64 {
        defer { index = (index + 1) % values.count }
        return values[index]
    }
}
