/// Live fixes from gpsd, one per epoch: the Linux, gpsd-backed counterpart of
/// CoreLocation's `CLLocationUpdate.liveUpdates()`.
///
/// ```swift
/// for try await fix in GPSDSession.shared().fixes() {
///     print(fix.latitude, fix.longitude)
/// }
/// ```
///
/// The fixes of a session's ``AsyncGPSDEventSequence``: each iterator is one
/// consumer of the session's shared connection, and keeps the session alive while
/// it iterates. Cancelling the consuming task ends the iteration (it returns `nil`);
/// when the last consumer ends or is released, the watch and the socket close and
/// the reader thread ends. Connection failures are thrown as ``LocTrackError``.
public struct AsyncFixSequence: AsyncSequence, Sendable {
    public typealias Element = Fix
    public typealias Failure = LocTrackError

    let events: AsyncGPSDEventSequence

    public func makeAsyncIterator() -> Iterator {
        Iterator(events: events.makeAsyncIterator())
    }

    public struct Iterator: AsyncIteratorProtocol {
        public typealias Element = Fix
        public typealias Failure = LocTrackError

        var events: AsyncGPSDEventSequence.Iterator

        public mutating func next() async throws(LocTrackError) -> Fix? {
            while let event = try await events.next() {
                if case .fix(let fix) = event { return fix }
            }
            return nil
        }
    }
}

@available(*, unavailable)
extension AsyncFixSequence.Iterator: Sendable {}

/// What one consumer's queue of fixes does when the consumer falls behind.
public struct FixBufferingPolicy: Sendable, Hashable {
    enum Kind: Hashable, Sendable {
        case bounded(Int), unbounded, newest(Int), oldest(Int)
    }

    let kind: Kind

    /// The backlog at which the reader stops reading, if this policy applies backpressure.
    var backpressureLimit: Int? {
        if case .bounded(let limit) = kind { return limit }
        return nil
    }

    /// Keep every fix, and when `limit` fixes wait for this consumer, stop reading
    /// from gpsd until it catches up: nothing is dropped and memory stays bounded
    /// (gpsd then buffers, and drops a client that stays far behind; loctrack
    /// reconnects if asked to). The default, with a limit of 1024.
    public static func bounded(_ limit: Int) -> Self { Self(kind: .bounded(max(1, limit))) }
    public static let `default` = bounded(1024)
    /// Keep every fix and keep reading: memory grows with the backlog.
    public static let unbounded = FixBufferingPolicy(kind: .unbounded)
    /// Keep only the newest `limit` waiting fixes (older ones are dropped).
    public static func bufferingNewest(_ limit: Int) -> Self { Self(kind: .newest(max(1, limit))) }
    /// Keep only the oldest `limit` waiting fixes (newer ones are dropped).
    public static func bufferingOldest(_ limit: Int) -> Self { Self(kind: .oldest(max(1, limit))) }

    /// The most events a dropping policy lets wait.
    var dropLimit: Int? {
        switch kind {
        case .bounded, .unbounded: nil
        case .newest(let limit), .oldest(let limit): limit
        }
    }

    /// Whether the oldest waiting events make room (`.bufferingNewest`), or the newest are dropped.
    var dropsOldest: Bool {
        if case .newest = kind { return true }
        return false
    }
}
