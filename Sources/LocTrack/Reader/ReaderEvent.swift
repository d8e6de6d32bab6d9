/// What the reader thread tells the rest of loctrack, in order.
enum ReaderEvent: Sendable {
    /// A complete fix for one epoch.
    case fix(Fix)
    /// gpsd's answer to `?POLL`: the latest fix of each watched device, and gpsd's clock.
    case polled([Fix], gpsdTime: Timestamp?)
    /// Something to report that is not a fix.
    case status(GPSDStatus)
    /// The connection failed or gpsd refused the watch; nothing more follows.
    case failed(LocTrackError)
    /// The reader stopped because it was asked to; nothing more follows.
    case ended
}
