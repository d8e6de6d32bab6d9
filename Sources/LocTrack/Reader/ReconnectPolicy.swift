import LocTrackSystem
/// Whether a session reconnects when gpsd is unavailable or goes away.
public struct ReconnectPolicy: Sendable, Hashable {
    /// Delay before the first retry; it doubles with every failed attempt.
    public let initialDelay: Duration
    /// The longest delay between attempts.
    public let maximumDelay: Duration
    let enabled: Bool

    /// Fail at once: the iteration throws the connection error (the default).
    public static let never = ReconnectPolicy(initialDelay: .zero, maximumDelay: .zero, enabled: false)

    /// Keep trying with capped, jittered exponential backoff: 0.5 s, 1 s, 2 s, … up to 30 s,
    /// each delay drawn between half and all of its step so that many clients
    /// restarted together do not retry in lockstep.
    public static let automatic = ReconnectPolicy(initialDelay: .milliseconds(500), maximumDelay: .seconds(30), enabled: true)

    public static func backoff(initialDelay: Duration, maximumDelay: Duration) -> ReconnectPolicy {
        ReconnectPolicy(initialDelay: initialDelay, maximumDelay: maximumDelay, enabled: true)
    }
}

/// The delays of one outage (gpsd's, and the MQTT broker's).
package struct Backoff: Sendable {
    package let policy: ReconnectPolicy
    private var step: Duration

    package init(_ policy: ReconnectPolicy) {
        self.policy = policy
        self.step = policy.initialDelay
    }

    /// The next delay in milliseconds, in [step / 2, step].
    package mutating func nextDelayMilliseconds() -> Int32 {
        var jitter = SystemRandomNumberGenerator()
        return nextDelayMilliseconds(using: &jitter)
    }

    /// The next delay in milliseconds, in [step / 2, step], drawn from `jitter`: a test
    /// passes a seeded generator to get the same delays every run.
    package mutating func nextDelayMilliseconds(using jitter: inout some RandomNumberGenerator) -> Int32 {
        let stepMilliseconds = max(1, step.milliseconds)
        step = min(step * 2, policy.maximumDelay)
        return Int32(clamping: Int64.random(in: (stepMilliseconds / 2)...stepMilliseconds, using: &jitter))
    }

    package mutating func reset() {
        step = policy.initialDelay
    }
}
