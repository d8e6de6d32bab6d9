/// What the reader thread tells the rest of loctrack, in order.
enum ReaderEvent: Sendable {
    /// A complete fix for one epoch.
    case fix(Fix)
    /// A fix the merger holds because its epoch may still grow: sent only while a
    /// consumer asked for the first fix that passes (``GPSDSession/firstFix``), never
    /// to a stream of epochs.
    case provisional(Fix)
    /// gpsd's answer to `?POLL`: the latest fix of each watched device, and gpsd's clock.
    case polled([Fix], gpsdTime: Timestamp?)
    /// Something to report that is not a fix.
    case status(GPSDStatus)
    /// The connection failed or gpsd refused the watch; nothing more follows.
    case failed(LocTrackError)
    /// The reader stopped because it was asked to; nothing more follows.
    case ended
}
