/// One thing a session saw, in the order the reader saw it: a fix, or a
/// status about the connection and the receiver.
///
/// ``GPSDSession/events(bufferingPolicy:startingWithLatestNoOlderThan:)`` delivers
/// them as one ordered sequence, so a consumer knows, for instance, that a track
/// broke (``GPSDStatus/waiting(_:retryIn:)``) between exactly these two fixes.
public enum GPSDEvent: Sendable, Equatable {
    case fix(Fix)
    case status(GPSDStatus)

    /// The fix, if this event is one.
    public var fix: Fix? {
        if case .fix(let fix) = self { return fix }
        return nil
    }
}
