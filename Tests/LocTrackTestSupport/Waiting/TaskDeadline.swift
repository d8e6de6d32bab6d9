import Synchronization

extension Task {
    /// The task's value, awaited at most `limit`: past that the task is cancelled and a
    /// ``HarnessError`` naming `what` is thrown at once, even if the task ignores the
    /// cancellation (it is left behind rather than hanging the test).
    ///
    /// Plain `task.value` does not return when the awaiting test is cancelled (by its time
    /// limit, say): a test that awaits a stuck task never ends.
    package func value(within limit: Duration, _ what: @autoclosure () -> String = "the task") async throws -> Success {
        let timeout = HarnessError("timed out after \(limit) waiting for \(what())")
        let outcome = FirstOutcome<Success>()
        return try await withCheckedThrowingContinuation { continuation in
            outcome.install(continuation)
            let watchdog = Task<Void, Never> {
                try? await Task<Never, Never>.sleep(for: limit)
                guard !Task<Never, Never>.isCancelled, outcome.resume(with: .failure(timeout)) else { return }
                cancel()
            }
            Task<Void, Never> {
                let result = await self.result.mapError { $0 as any Error }
                watchdog.cancel()
                outcome.resume(with: result)
            }
        }
    }
}

/// Resumes a continuation with whichever outcome comes first; later ones are dropped.
private final class FirstOutcome<Success: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<Success, any Error>?>(nil)

    func install(_ continuation: CheckedContinuation<Success, any Error>) {
        self.continuation.withLock { $0 = continuation }
    }

    /// Whether this was the first outcome.
    @discardableResult
    func resume(with result: Result<Success, any Error>) -> Bool {
        guard let continuation = continuation.withLock({ stored in defer { stored = nil }; return stored }) else { return false }
        continuation.resume(with: result)
        return true
    }
}
