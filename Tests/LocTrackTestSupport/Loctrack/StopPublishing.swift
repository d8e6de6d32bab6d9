import Glibc

/// The end of a publish test: waits `settle` (for anything extra to show), then stops the
/// plain stream beside the publisher (its lines are what the messages must be) and the
/// publisher, both with SIGINT.
/// - Returns: the publisher's result and the plain stream's lines.
package func stopPublishing(
    _ publisher: ChildProcess, beside plain: ChildProcess, settle: Duration = .milliseconds(500)
) async throws -> (result: LoctrackResult, expected: [String]) {
    if settle > .zero { try await Task.sleep(for: settle) }
    let expected = try await plain.interruptedLines()
    publisher.signal(SIGINT)
    return (try await publisher.result(), expected)
}
