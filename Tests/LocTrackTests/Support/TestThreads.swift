import Glibc
import LocTrackSystem

/// Starts a test's helper thread, which the test never waits for: joined by
/// ``ThreadReaper`` when its body returns.
func startThread(named name: String, _ body: @escaping @Sendable () -> Void) throws(Errno) {
    try JoinableThread(named: name, body).handToReaper()
}

/// Runs a raw C call of a test double again while it fails with EINTR (loctrack's own
/// calls go through LocTrackSystem, which throws instead).
func retryingInterrupts<Result: SignedInteger>(_ call: () -> Result) -> Result {
    while true {
        let result = call()
        if result >= 0 || errno != EINTR { return result }
    }
}
