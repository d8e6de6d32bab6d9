import LocTrackSystem
extension GPSDSession {
    /// Waits for the first fix whose horizontal error estimate (`eph`) is at most
    /// `minimumAccuracy` metres, like a one-shot CoreLocation request.
    ///
    /// It takes the first report that passes, without waiting for its epoch to end:
    /// while gpsd is still learning a receiver's cycle (the first seconds of a fresh
    /// connection), that can be the epoch's first TPV, before a later sentence of the
    /// same epoch adds, say, altitude. A stream of ``fixes(bufferingPolicy:startingWithLatestNoOlderThan:)``
    /// waits for the complete epoch instead.
    ///
    /// - Parameters:
    ///   - minimumAccuracy: the largest acceptable `eph`, in metres; a fix
    ///     without an estimate does not pass. `nil` accepts any fix.
    ///   - timeout: how long to wait.
    ///   - maximumAge: accept the fix gpsd already has (`?POLL`) when it is no older
    ///     than this by gpsd's clock, so a warm gpsd answers at once; `nil` waits for a new fix.
    ///   - progress: called with every event on the way: statuses, and every fix
    ///     considered, including those that miss the bar.
    /// - Throws: ``LocTrackError`` `.noFixBeforeTimeout`, a connection error, or
    ///   `CancellationError` when the calling task is cancelled.
    public func firstFix(
        minimumAccuracy: Double? = nil, timeout: Duration, maximumAge: Duration? = .seconds(2),
        progress: (@Sendable (GPSDEvent) -> Void)? = nil
    ) async throws -> Fix {
        let events = AsyncGPSDEventSequence(session: self, options: SubscriberOptions(
            bufferingPolicy: .bufferingNewest(64), includesStatuses: progress != nil,
            includesProvisionalFixes: true, latestNoOlderThan: maximumAge))
        let source = self.source
        return try await withThrowingTaskGroup(of: Fix.self) { group in
            group.addTask {
                for try await event in events {
                    progress?(event)
                    if let fix = event.fix, fix.meets(minimumAccuracy: minimumAccuracy) { return fix }
                }
                try Task.checkCancellation()
                throw LocTrackError(.connectionLost, source: source, reason: "the stream ended before a fix")
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw LocTrackError(.noFixBeforeTimeout, source: source, reason: "waited \(timeout.seconds) s")
            }
            defer { group.cancelAll() }
            guard let fix = try await group.next() else { throw CancellationError() }
            return fix
        }
    }
}

extension Fix {
    /// Whether the fix's horizontal error estimate is known and at most `minimumAccuracy` metres.
    public func meets(minimumAccuracy: Double?) -> Bool {
        guard let minimumAccuracy else { return true }
        guard let horizontalError else { return false }
        return horizontalError <= minimumAccuracy
    }
}
