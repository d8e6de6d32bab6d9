import LocTrack

/// A monitor's events, decided from a session's fixes (``GeofenceMonitor/events(from:)``),
/// after those a previous run did not deliver (``GeofenceMonitor/undelivered()``).
///
/// Iterating it iterates the session: releasing the iterator releases the session's
/// subscription like any other. It ends when the session ends; it throws the
/// session's ``LocTrackError`` or the monitor's ``GeofenceError``. Asking for the next
/// batch confirms the delivery of the last (``GeofenceMonitor/process(_:)-(some Sequence<GPSDEvent>)``).
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
        var started = false

        public mutating func next() async throws -> GeofenceEvent? {
            if !started {
                started = true
                ready = await monitor.undelivered().map(\.event)
            }
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
