extension GPSDSession {
    /// Waits for the first fix whose horizontal error estimate (`eph`) is at most
    /// `minimumAccuracy` metres, like a one-shot CoreLocation request.
    ///
    /// - Parameters:
    ///   - minimumAccuracy: the largest acceptable `eph`, in metres; a fix
    ///     without an estimate does not pass. `nil` accepts any fix.
    ///   - timeout: how long to wait.
    ///   - maximumAge: accept the fix gpsd already has (`?POLL`) when it is no older
    ///     than this by gpsd's clock, so a warm gpsd answers at once; `nil` waits for a new fix.
    ///   - progress: called with every fix considered, including those that miss the bar.
    /// - Throws: ``LocTrackError`` `.noFixBeforeTimeout`, a connection error, or
    ///   `CancellationError` when the calling task is cancelled.
    public func firstFix(
        minimumAccuracy: Double? = nil, timeout: Duration, maximumAge: Duration? = .seconds(2),
        progress: (@Sendable (Fix) -> Void)? = nil
    ) async throws -> Fix {
        let fixes = self.fixes(startingWithLatestNoOlderThan: maximumAge)
        let source = self.source
        return try await withThrowingTaskGroup(of: Fix.self) { group in
            group.addTask {
                for try await fix in fixes {
                    progress?(fix)
                    if fix.meets(minimumAccuracy: minimumAccuracy) { return fix }
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

extension Duration {
    /// Whole and fractional seconds, for messages.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
