/// Every delay the reader thread keeps, in one place, so tests can shrink them
/// to milliseconds (the defaults are what loctrack uses against a real gpsd).
struct ReaderTimings: Sendable {
    /// How long a connected peer has to send gpsd's VERSION banner.
    var banner: Duration = .seconds(2)
    /// How long a held fix (an epoch that may still grow) waits when nothing arrives.
    var quietFlush: Duration = .milliseconds(1_500)
    /// How long without a fix before a silent receiver is reported.
    var silence: Duration = .seconds(5)
    /// How long libgps's connect may take before the attempt counts as failed.
    var connect: Duration = .seconds(3)
    /// How long a stopping reader waits for gpsd's reply to its unwatch (``Unwatch``).
    var unwatchReply: Duration = .milliseconds(250)

    static let standard = ReaderTimings()
}
