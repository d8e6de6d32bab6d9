/// A monitor's events, decided from a session's fixes (``GeofenceMonitor/events(from:)``).
///
/// Iterating it iterates the session: releasing the iterator releases the session's
/// subscription like any other. It ends when the session ends; it throws the
/// session's ``LocTrackError`` or the monitor's ``GeofenceError``.
public struct AsyncGeofenceEventSequence: AsyncSequence, Sendable {
    public typealias Element = GeofenceEvent
    public typealias Failure = any Error

    let monitor: GeofenceMonitor
    let session: GPSDSession

    public func makeAsyncIterator() -> Iterator {
        Iterator(monitor: monitor, events: session.events().makeAsyncIterator())
    }

    public struct Iterator: AsyncIteratorProtocol {
        let monitor: GeofenceMonitor
        var events: AsyncGPSDEventSequence.Iterator
        var ready: [GeofenceEvent] = []
        var nextReady = 0

        public mutating func next() async throws -> GeofenceEvent? {
            while nextReady == ready.count {
                guard let batch = try await events.nextBatch() else { return nil }
                ready = try await monitor.process(batch)
                nextReady = 0
            }
            defer { nextReady += 1 }
            return ready[nextReady]
        }
    }
}

@available(*, unavailable)
extension AsyncGeofenceEventSequence.Iterator: Sendable {}
