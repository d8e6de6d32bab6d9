/// What the reader thread tells the rest of loctrack, in order.
///
/// `indirect`: each payload lives in a box, so a copy of an event is one retain.
/// Unboxed, its copy and destroy code (a `Fix` is ~450 bytes of optionals, and
/// every case has its own) ran for every fix; at 1 Hz that code, not its
/// instructions, is what a fix costs (docs/performance.md, "Why 1 Hz misses").
indirect enum ReaderEvent: Sendable {
    /// A complete fix for one epoch.
    case fix(Fix)
    /// A fix the merger holds because its epoch may still grow: sent only while a
    /// consumer asked for the first fix that passes (``GPSDSession/firstFix``), never
    /// to a stream of epochs.
    case provisional(Fix)
    /// gpsd's answer to `?POLL`: the latest fix of each watched device, and gpsd's clock.
    case polled([Fix], gpsdTime: Timestamp?)
    /// A SKY report, read only when the session asked for satellites.
    case sky(SkyView)
    /// Something to report that is not a fix.
    case status(GPSDStatus)
    /// The connection failed or gpsd refused the watch; nothing more follows.
    case failed(LocTrackError)
    /// The reader stopped because it was asked to; nothing more follows.
    case ended
}
