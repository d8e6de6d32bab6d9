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
        Iterator(base: session.subscribe(bufferingPolicy: bufferingPolicy, latestNoOlderThan: latestNoOlderThan)
            .makeAsyncIterator())
    }

    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Fix, any Error>.Iterator

        public mutating func next() async throws -> Fix? {
            try await base.next()
        }
    }
}

@available(*, unavailable)
extension AsyncFixSequence.Iterator: Sendable {}

/// What one consumer's queue of fixes does when the consumer falls behind.
public struct FixBufferingPolicy: Sendable, Hashable {
    enum Kind: Hashable, Sendable {
        case unbounded, newest(Int), oldest(Int)
    }

    let kind: Kind

    /// Keep every fix (the default): nothing is dropped.
    public static let unbounded = FixBufferingPolicy(kind: .unbounded)
    /// Keep only the newest `limit` waiting fixes (older ones are dropped).
    public static func bufferingNewest(_ limit: Int) -> Self { Self(kind: .newest(max(1, limit))) }
    /// Keep only the oldest `limit` waiting fixes (newer ones are dropped).
    public static func bufferingOldest(_ limit: Int) -> Self { Self(kind: .oldest(max(1, limit))) }

    var streamPolicy: AsyncThrowingStream<Fix, any Error>.Continuation.BufferingPolicy {
        switch kind {
        case .unbounded: .unbounded
        case .newest(let limit): .bufferingNewest(limit)
        case .oldest(let limit): .bufferingOldest(limit)
        }
    }
}
