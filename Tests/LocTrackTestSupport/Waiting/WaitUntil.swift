
/// Polls `condition` every 5 ms until it holds; throws after `timeout`.
package func waitUntil(timeout: Duration, _ what: @autoclosure () -> String, _ condition: () throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try !condition() {
        guard ContinuousClock.now < deadline else { throw HarnessError("timed out after \(timeout) waiting for \(what())") }
        try await Task.sleep(for: .milliseconds(5))
    }
}
