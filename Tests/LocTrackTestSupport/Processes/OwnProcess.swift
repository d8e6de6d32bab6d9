import Foundation

/// This test binary run again for one test, in a process of its own: for tests that
/// count what their process holds (threads, descriptors, memory: ``ProcessResources``)
/// while other suites run beside them.
///
/// The test, in the parent, starts the child with ``run(filter:timeLimit:)`` and checks
/// its exit status; in the child (``isChild``), the same test runs its body. The child is
/// `.build/…/loctrackPackageTests.xctest --testing-library swift-testing --filter …`, what
/// `swift test` runs, so its stderr is swift-testing's report, with every expectation's values.
///
/// (swift-testing's exit tests would do the same, but their monitor thread polls `waitid`
/// for every child of the process, and busy-loops while another test's child has ended
/// and is not yet reaped: a core for the rest of the run.)
package enum OwnProcess {
    private static let variable = "LOCTRACK_TEST_IN_OWN_PROCESS"

    /// Whether this process is such a child.
    package static var isChild: Bool { ProcessInfo.processInfo.environment[variable] != nil }

    /// Runs the swift-testing tests whose identifiers match `filter` (a regular expression,
    /// e.g. `SessionLifetime/thousandSessions\(`) in a child process, to its end.
    package static func run(filter: String, timeLimit: Duration) async throws -> LoctrackResult {
        let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let child = try ChildProcess(
            executable: binary, arguments: [binary, "--testing-library", "swift-testing", "--filter", filter],
            environment: [variable: "1"], stdin: .null, stdout: .pipe, stderr: .pipe)
        return try await child.result(timeLimit: timeLimit)
    }
}
