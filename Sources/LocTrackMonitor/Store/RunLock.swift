import LocTrack
import LocTrackSystem

/// Proof that this process runs a monitor: an exclusive `flock` on its `.run` file,
/// held for as long as this object lives. The kernel drops the lock when the descriptor
/// is closed, also when the process dies, so a crash never leaves a monitor locked.
package final class RunLock: Sendable {
    /// The `.run` file.
    package let path: String
    /// Closed, and so unlocked, with this object.
    private let descriptor: FileDescriptor

    init(path: String, descriptor: consuming FileDescriptor) {
        self.path = path
        self.descriptor = descriptor
    }
}
