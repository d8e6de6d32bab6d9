public import LocTrack
import LocTrackSystem

/// The persisted odometer: a small state file (``OdometerFileFormat``) that makes the
/// reading monotonic across restarts.
///
/// Start an ``Odometer`` from ``metres``, and ``record(_:at:)`` each reading: a reading is
/// written when it is higher than the stored one and at least a second of receiver time
/// after the last write, so a SIGKILL or a power cut loses at most the last second's
/// metres, and a parked tracker writes nothing. ``flush()`` writes what the throttle held
/// back (at the end of the input); ``set(metres:)`` stores a user's value at once (the
/// vehicle's own odometer), lower or higher.
///
/// Every write is atomic and durable, as the monitor's state file: a new file beside it,
/// written and `fsync`ed, renamed over the old one, and the folder synced, all under an
/// exclusive lock on `<path>.lock` so that two writers never share the new file. A reader
/// sees the old reading or the new one, never half of one. A corrupt file is an error,
/// never silently replaced by zero.
public struct OdometerStore: Sendable {
    /// The state file.
    public let path: String
    /// The stored reading in metres (0 when there is no file yet).
    public private(set) var metres: Double
    /// The receiver time of the stored reading; nil when a user set it or nothing was stored.
    public private(set) var storedTime: Timestamp?
    /// A reading higher than the stored one, not yet written (the once-a-second limit).
    private var heldBack: OdometerFileFormat.Contents?
    /// The receiver time of the last ``record(_:at:)`` that wrote: the clock of the limit.
    private var lastWrite: Timestamp?

    /// Missing folders are created with this mode: only the owner may look in them.
    static let directoryMode: UInt32 = 0o700
    static let fileMode: UInt32 = 0o600
    /// Readings are written at most this often, in seconds of receiver time.
    static let writeInterval = 1.0

    var temporaryPath: String { path + ".tmp" }
    var lockPath: String { path + ".lock" }

    /// Opens the odometer stored at `path`; a missing file is an odometer at 0 m (nothing
    /// is written until a reading is recorded or set).
    /// - Throws: ``OdometerStoreError/corruptFile(path:reason:)`` when the file is not an
    ///   odometer file, `.fileIO` when it cannot be read.
    public static func open(_ path: String) throws(OdometerStoreError) -> OdometerStore {
        let bytes: [UInt8]
        do {
            bytes = try readWholeFile(path)
        } catch where error == .noSuchFile {
            return OdometerStore(path: path, contents: OdometerFileFormat.Contents(metres: 0))
        } catch {
            throw .fileIO(path: path, operation: "read", errorNumber: error.code)
        }
        do {
            return OdometerStore(path: path, contents: try OdometerFileFormat.decode(bytes))
        } catch {
            throw .corruptFile(path: path, reason: error.reason)
        }
    }

    private init(path: String, contents: OdometerFileFormat.Contents) {
        self.path = path
        metres = contents.metres
        storedTime = contents.time
    }

    /// Records `reading`, taken at the receiver time `time`.
    ///
    /// A reading higher than the stored one is written when no write happened in the last
    /// second of receiver time; otherwise it is held back, and written by the first
    /// ``record(_:at:)`` a second after the last write (whatever that one reads) or by
    /// ``flush()``. A reading no higher than the stored one is never written: the stored
    /// odometer goes down only when ``set(metres:)`` says so.
    /// - Returns: whether the file was written.
    @discardableResult
    public mutating func record(_ reading: OdometerReading, at time: Timestamp) throws(OdometerStoreError) -> Bool {
        if reading.metres.isFinite, reading.metres > (heldBack?.metres ?? metres) {
            heldBack = OdometerFileFormat.Contents(metres: reading.metres, time: time)
        }
        guard let contents = heldBack else { return false }
        // A clock that went back starts the limit afresh rather than holding writes for as long.
        if let lastWrite, case let elapsed = time.seconds(since: lastWrite), elapsed >= 0, elapsed < Self.writeInterval {
            return false
        }
        try write(contents)
        lastWrite = time
        return true
    }

    /// Writes the reading that the once-a-second limit held back, if any: at the end of
    /// the input, so that nothing recorded is lost by a clean exit.
    public mutating func flush() throws(OdometerStoreError) {
        guard let contents = heldBack else { return }
        try write(contents)
    }

    /// Sets the odometer to `metres` (the vehicle's own reading, say), written at once.
    /// Start a new ``Odometer`` from it.
    public mutating func set(metres: Double) throws(OdometerStoreError) {
        guard metres.isFinite, metres >= 0 else { throw .invalidMetres(metres) }
        try write(OdometerFileFormat.Contents(metres: metres, time: nil))
    }

    private mutating func write(_ contents: OdometerFileFormat.Contents) throws(OdometerStoreError) {
        try replaceFile(with: OdometerFileFormat.encode(contents))
        metres = contents.metres
        storedTime = contents.time
        heldBack = nil
    }
}
