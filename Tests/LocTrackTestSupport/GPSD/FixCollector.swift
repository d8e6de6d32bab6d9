import Foundation
package import LocTrack
import Synchronization

/// Iterates a fix sequence in a task of its own and records what it got.
package final class FixCollector: Sendable {
    package enum Outcome: Sendable, CustomStringConvertible {
        case finished
        case threw(any Error)

        package var isFinished: Bool {
            if case .finished = self { return true }
            return false
        }

        package var locTrackErrorCode: LocTrackError.Code? {
            if case .threw(let error as LocTrackError) = self { return error.code }
            return nil
        }

        package var description: String {
            switch self {
            case .finished: "finished"
            case .threw(let error): "threw \(type(of: error)): \(error)"
            }
        }
    }

    private struct State {
        var fixes: [Fix] = []
        var subscribed = false
        var outcome: Outcome?
        var endedAt: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    private let task = Mutex<Task<Void, Never>?>(nil)

    package init(_ sequence: AsyncFixSequence) {
        let task = Task { [self] in
            var iterator = sequence.makeAsyncIterator()
            state.withLock { $0.subscribed = true }
            let outcome: Outcome
            do {
                while let fix = try await iterator.next() {
                    state.withLock { $0.fixes.append(fix) }
                }
                outcome = .finished
            } catch {
                outcome = .threw(error)
            }
            state.withLock {
                $0.outcome = outcome
                $0.endedAt = .now
            }
        }
        self.task.withLock { $0 = task }
    }

    package var fixes: [Fix] { state.withLock { $0.fixes } }
    package var endedAt: ContinuousClock.Instant? { state.withLock { $0.endedAt } }
    /// How the iteration ended; nil while it runs.
    package var outcome: Outcome? { state.withLock { $0.outcome } }

    package func cancel() {
        task.withLock { $0?.cancel() }
    }

    package func waitForSubscription(timeout: Duration = .seconds(5)) async throws {
        try await waitUntil(timeout: timeout, "the consumer to start iterating") { state.withLock { $0.subscribed } }
    }

    package func waitForFixes(_ count: Int, timeout: Duration = .seconds(15)) async throws {
        try await waitUntil(timeout: timeout, "\(count) fixes; have \(fixes.count), outcome \(String(describing: state.withLock { $0.outcome }))") {
            state.withLock { $0.fixes.count >= count || $0.outcome != nil }
        }
    }

    /// Waits until the iteration ended (returned nil or threw).
    @discardableResult
    package func waitForEnd(timeout: Duration = .seconds(15)) async throws -> Outcome {
        try await waitUntil(timeout: timeout, "the iteration to end; have \(fixes.count) fixes") {
            state.withLock { $0.outcome != nil }
        }
        return state.withLock { $0.outcome! }
    }

    deinit {
        task.withLock { $0?.cancel() }
    }
}
