import Glibc
import LocTrackSystem

/// Starts a test's helper thread, which the test never waits for: joined by
/// ``ThreadReaper`` when its body returns.
func startThread(named name: String, _ body: @escaping @Sendable () -> Void) throws(Errno) {
    try JoinableThread(named: name, body).handToReaper()
}
