/// What the reader thread tells the rest of loctrack, in order.
enum ReaderEvent: Sendable {
    /// A complete fix for one epoch.
    case fix(Fix)
    /// Something to report that is not a fix.
    case status(GPSDStatus)
    /// The connection failed or gpsd refused the watch; nothing more follows.
    case failed(LocTrackError)
    /// The reader stopped because it was asked to; nothing more follows.
    case ended
}
