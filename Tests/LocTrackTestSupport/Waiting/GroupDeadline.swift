package import Dispatch

extension DispatchGroup {
    /// Waits for the group's work at most `limit`, without blocking a thread of the
    /// cooperative pool; past that throws a ``HarnessError`` naming `what`.
    package func wait(within limit: Duration, _ what: @autoclosure () -> String) async throws {
        let done = Task<Void, any Error> {
            await withCheckedContinuation { continuation in notify(queue: .global()) { continuation.resume() } }
        }
        try await done.value(within: limit, what())
    }
}
