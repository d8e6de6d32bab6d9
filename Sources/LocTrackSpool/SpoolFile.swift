import LocTrackSystem

/// An open segment file, shared by reference: ``SpoolState`` keeps the last segment's
/// (the one appends go to), and an append or a read in progress holds it too. So a
/// segment replaced by a new one, or deleted once acknowledged, stays writable and
/// readable through it until its last holder lets go; the descriptor is closed then, in
/// `deinit`. The state never drops the last reference itself: it hands the file it
/// lets go of back to its caller (``SpoolState/segmentStarted(_:file:)``,
/// ``SpoolState/segmentDeleted(_:)``), which releases it once the mutex is released, so
/// that this `close` too happens outside the lock.
final class SpoolFile: Sendable {
    /// The segment's path.
    let path: String
    /// Open for reading and writing; -1 for a file that was never opened (``init(notOpen:)``).
    let descriptor: Int32
    /// The open file, closed with this object; nil for a stand-in.
    private let file: FileDescriptor?

    init(path: String, file: consuming FileDescriptor) {
        self.path = path
        descriptor = file.rawValue
        self.file = .some(file)
    }

    /// A stand-in with no descriptor, for the tests of ``SpoolState``'s decisions: they
    /// need a last segment that is open, not a file.
    init(notOpen path: String) {
        self.path = path
        descriptor = -1
        file = nil
    }
}
