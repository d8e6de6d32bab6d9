/// One thing a session saw, in the order the reader saw it: a fix, or a
/// status about the connection and the receiver.
///
/// ``GPSDSession/events(bufferingPolicy:startingWithLatestNoOlderThan:)`` delivers
/// them as one ordered sequence, so a consumer knows, for instance, that a track
/// broke (``GPSDStatus/waiting(_:retryIn:)``) between exactly these two fixes.
///
/// `indirect`: a copy of an event is one retain, not the copy code of a `Fix`
/// (~450 bytes of optionals) and of every status; each event is copied or
/// destroyed a few times on its way, and at 1 Hz that code is what a fix costs
/// (docs/performance.md, "Why 1 Hz misses").
public indirect enum GPSDEvent: Sendable, Equatable {
    case fix(Fix)
    case status(GPSDStatus)
    /// What a SKY report said: only from a session that asked for satellites
    /// (`reportsSatellites: true`).
    case sky(SkyView)

    /// The fix, if this event is one.
    public var fix: Fix? {
        if case .fix(let fix) = self { return fix }
        return nil
    }
}
