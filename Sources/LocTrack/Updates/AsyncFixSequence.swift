/// Live fixes from gpsd, one per epoch: the Linux, gpsd-backed counterpart of
/// CoreLocation's `CLLocationUpdate.liveUpdates()`.
///
/// ```swift
/// for try await fix in GPSDSession.shared().fixes() {
///     print(fix.latitude, fix.longitude)
/// }
/// ```
///
/// Each iterator is one consumer of its session's shared connection. Cancelling
/// the consuming task ends the iteration (it returns `nil`) and, for the last
/// consumer, closes the watch and the socket. Connection failures are thrown as
/// ``LocTrackError``.
public struct AsyncFixSequence: AsyncSequence, Sendable {
    public typealias Element = Fix
    public typealias Failure = any Error

    let session: GPSDSession
    let bufferingPolicy: FixBufferingPolicy
    let latestNoOlderThan: Duration?

    public func makeAsyncIterator() -> Iterator {
        let (stream, consumed) = session.subscribe(bufferingPolicy: bufferingPolicy, latestNoOlderThan: latestNoOlderThan)
        return Iterator(base: stream.makeAsyncIterator(), consumed: consumed)
    }

    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Fix, any Error>.Iterator
        /// Tells the session a fix left this consumer's queue (for backpressure).
        let consumed: @Sendable () -> Void

        public mutating func next() async throws -> Fix? {
            let fix = try await base.next()
            if fix != nil { consumed() }
            return fix
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

    var streamPolicy: AsyncThrowingStream<Fix, any Error>.Continuation.BufferingPolicy {
        switch kind {
        case .bounded, .unbounded: .unbounded
        case .newest(let limit): .bufferingNewest(limit)
        case .oldest(let limit): .bufferingOldest(limit)
        }
    }
}
