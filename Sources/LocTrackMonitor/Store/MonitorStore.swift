import LocTrack
import LocTrackSystem

/// A named monitor's files, and the only code that reads or writes them.
///
/// In `directory`: `<name>.monitor.json`, the state (``MonitorFileFormat``), always
/// replaced whole by an atomic rename, so a reader sees the old file or the new one,
/// never half of one; `<name>.monitor.lock`, a separate, empty file that `read` and
/// `update` lock (the state file itself cannot be: every write replaces its inode, and a
/// process blocked on the old inode would wake holding a lock on a file nobody reads);
/// and `<name>.monitor.run`, which a running monitor keeps locked (``holdRunLock()``).
///
/// `loctrack monitor add` and a running `loctrack monitor` in another process both go
/// through ``update(_:)``, whose exclusive lock makes each read-change-write whole: no
/// change is lost between them. Every lock is taken on a descriptor opened for that one
/// call, so it also excludes other threads of this process (`flock` locks belong to the
/// open file description).
package struct MonitorStore: Sendable {
    package let name: String
    /// The folder of the files, `…/loctrack` by default.
    package let directory: String

    package var statePath: String { "\(directory)/\(name).monitor.json" }
    package var lockPath: String { "\(directory)/\(name).monitor.lock" }
    package var runPath: String { "\(directory)/\(name).monitor.run" }
    /// The new state is written here, then renamed over ``statePath``. One name suffices:
    /// only the holder of the exclusive lock writes it, and a leftover from a writer that
    /// died is removed before the next write.
    var temporaryPath: String { "\(directory)/\(name).monitor.json.tmp" }

    /// Missing directories are created with this mode: only the owner may look in them
    /// (the XDG Base Directory specification asks for 0700).
    static let directoryMode: UInt32 = 0o700
    static let fileMode: UInt32 = 0o600

    /// - Parameters:
    ///   - name: 1 to 64 of `A-Z a-z 0-9 . _ -`, not starting with `.` (it names files).
    ///   - directory: where the files go; by default `$XDG_STATE_HOME/loctrack` or
    ///     `~/.local/state/loctrack` (``StateDirectory``).
    ///   - environment: where `XDG_STATE_HOME` and `HOME` are looked up.
    /// - Throws: ``GeofenceError/invalidName(_:)``; `.stateFileIO` when no home is known.
    package init(name: String, directory: String? = nil, environment: [String: String] = MonitorStore.processEnvironment) throws(GeofenceError) {
        guard Self.isValidName(name) else { throw .invalidName(name) }
        self.name = name
        if let directory {
            self.directory = directory
        } else {
            do throws(StateDirectory.Failure) {
                self.directory = try StateDirectory.resolve(environment: environment)
            } catch {
                switch error {
                case .passwordDatabase(let errno):
                    throw .stateFileIO(path: "the password database", operation: "find the home directory in", errorNumber: errno.code)
                case .noHome:
                    throw .stateFileIO(path: "$HOME", operation: "find the state directory under", errorNumber: Errno.noSuchFile.code)
                }
            }
        }
    }

    /// `XDG_STATE_HOME` and `HOME` of this process.
    package static var processEnvironment: [String: String] { StateDirectory.processEnvironment }

    package static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...64).contains(bytes.count), bytes[0] != UInt8(ascii: ".") else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"): true
            default: false
            }
        }
    }

    /// The state as stored; a monitor never written is an empty snapshot.
    /// Read under a shared lock, so never while an ``update(_:)`` is between read and write.
    /// - Throws: `.stateFileIO` when the file cannot be read, `.corruptStateFile` when it
    ///   is not a state file.
    package func read() throws(GeofenceError) -> MonitorSnapshot {
        guard let lockFile = try openLock(creatingDirectories: false) else { return MonitorSnapshot(name: name) }
        try lock(lockFile.rawValue, .shared, as: "lock (shared)")
        return try readLocked()
    }

    /// The state as stored, for a reader that must change nothing (`serve`): nil when
    /// there is no state file. Unlike ``read()`` it creates nothing, neither the folder nor
    /// the lock file: the lock file is opened read-only and locked shared when it exists,
    /// so the read never falls between an update's read and write or into a journal
    /// append; without one, no loctrack has written this state through ``update(_:)``
    /// (a copied file), and the file is read unlocked.
    package func readWithoutWriting() throws(GeofenceError) -> MonitorSnapshot? {
        guard fileExists(statePath) else { return nil }
        let lockFile: FileDescriptor
        do {
            lockFile = try openFile(lockPath, .readOnly)
        } catch where error == .noSuchFile {
            return try readLocked()
        } catch {
            throw .stateFileIO(path: lockPath, operation: "open", errorNumber: error.code)
        }
        try lock(lockFile.rawValue, .shared, as: "lock (shared)")
        return try readLocked()
    }

    /// Reads the state, applies `change`, and writes the result if it differs, all under
    /// the exclusive lock.
    ///
    /// Nothing is written when `change` throws, or when the stored file is corrupt (it is
    /// left byte for byte as it is, for a person to look at). The write is atomic and
    /// durable: a new file in the same folder, synced, renamed over the old one, and the
    /// folder synced.
    /// - Returns: the snapshot as stored after the call.
    ///
    /// Swift 6 infers `any Error` for a closure with a `try` in it (typed-throws inference
    /// is the upcoming `FullTypedThrows`), so such a `change` needs its type spelled out:
    /// `update { (snapshot: inout MonitorSnapshot) throws(GeofenceError) in try snapshot.remove(id) }`.
    @discardableResult
    package func update(_ change: (inout MonitorSnapshot) throws(GeofenceError) -> Void) throws(GeofenceError) -> MonitorSnapshot {
        guard let lockFile = try openLock(creatingDirectories: true) else {
            throw .stateFileIO(path: lockPath, operation: "open", errorNumber: Errno.noSuchFile.code)
        }
        try lock(lockFile.rawValue, .exclusive, as: "lock")
        let stored = try readLocked()
        var changed = stored
        try change(&changed)
        if changed != stored { try write(changed) }
        return changed
    }

    /// Writes `snapshot` if the state file is still the version `expected` (nothing else
    /// has written it since), under the exclusive lock, without reading it.
    ///
    /// A running monitor's decisions take this path: it knows the file's version from its
    /// own last read or write, so re-reading and decoding the whole file for every
    /// decision would be wasted. Every write renames a new file into place, so another
    /// writer's change always shows in the signature (a new inode).
    /// - Returns: false, writing nothing, when the file changed: merge through ``update(_:)``.
    package func replace(with snapshot: MonitorSnapshot, ifStill expected: FileSignature?) throws(GeofenceError) -> Bool {
        try withExclusiveLock { () throws(GeofenceError) -> Bool in
            guard signature() == expected else { return false }
            try write(snapshot)
            return true
        }
    }

    /// Runs `body` holding the exclusive lock on the lock file.
    func withExclusiveLock<Result>(_ body: () throws(GeofenceError) -> Result) throws(GeofenceError) -> Result {
        guard let lockFile = try openLock(creatingDirectories: true) else {
            throw .stateFileIO(path: lockPath, operation: "open", errorNumber: Errno.noSuchFile.code)
        }
        try lock(lockFile.rawValue, .exclusive, as: "lock")
        return try body()
    }

    /// The state file's identity and version, or nil when there is none (or it cannot
    /// be examined, which the next ``read()`` will report).
    package func signature() -> FileSignature? {
        guard let file = try? fileIdentity(statePath) else { return nil }
        return FileSignature(
            device: file.device, inode: file.inode, size: file.size,
            modificationSeconds: file.modified / 1_000_000_000, modificationNanoseconds: file.modified % 1_000_000_000)
    }

    /// Locks the `.run` file for this process, creating it (and its folder) if needed.
    /// - Throws: ``GeofenceError/alreadyRunning(_:path:)`` when another process, or
    ///   another ``RunLock`` of this one, holds it.
    package func holdRunLock() throws(GeofenceError) -> RunLock {
        try createDirectory()
        let runFile = try io(runPath, "open") { () throws(Errno) in
            try openFile(runPath, [.readWrite, .create], mode: Self.fileMode)
        }
        do {
            try lockFile(runFile.rawValue, .exclusive, waiting: false)
        } catch {
            if error == .wouldBlock { throw .alreadyRunning(name, path: runPath) }
            throw .stateFileIO(path: runPath, operation: "lock", errorNumber: error.code)
        }
        return RunLock(path: runPath, descriptor: runFile)
    }

    // MARK: Steps

    /// A descriptor of the lock file, which is created if missing; nil when the folder
    /// does not exist and `creatingDirectories` is false (then there is no state either).
    /// Opened read-only where it cannot be created or written (a shared `flock` needs no
    /// write access), so another user's readable state can still be read.
    private func openLock(creatingDirectories: Bool) throws(GeofenceError) -> FileDescriptor? {
        if creatingDirectories { try createDirectory() }
        do {
            return try openFile(lockPath, [.readWrite, .create], mode: Self.fileMode)
        } catch where error == .noSuchFile && !creatingDirectories {
            return nil
        } catch where !creatingDirectories && (error == .permissionDenied || error == .readOnlyFileSystem) {
            return try io(lockPath, "open") { () throws(Errno) in try openFile(lockPath, .readOnly) }
        } catch {
            throw .stateFileIO(path: lockPath, operation: "open", errorNumber: error.code)
        }
    }

    /// Waits for a `lock` (`flock`) of the lock file.
    private func lock(_ descriptor: Int32, _ lock: FileLock, as name: String) throws(GeofenceError) {
        try io(lockPath, name) { () throws(Errno) in try lockFile(descriptor, lock) }
    }

    private func createDirectory() throws(GeofenceError) {
        try io(directory, "create the directory") { () throws(Errno) in
            try makeDirectories(directory, mode: Self.directoryMode)
        }
    }

    /// The stored snapshot (the lock held); empty when there is no state file.
    private func readLocked() throws(GeofenceError) -> MonitorSnapshot {
        let file: FileDescriptor
        do {
            file = try openFile(statePath, .readOnly)
        } catch where error == .noSuchFile {
            return MonitorSnapshot(name: name)
        } catch {
            throw .stateFileIO(path: statePath, operation: "open", errorNumber: error.code)
        }
        let descriptor = file.rawValue
        let bytes = try io(statePath, "read") { () throws(Errno) in try readToEnd(descriptor) }
        return try MonitorFileFormat.decode(bytes, path: statePath).named(name)
    }
}

extension MonitorSnapshot {
    /// The snapshot under the store's name: a state file copied from another monitor's
    /// (`cp home.monitor.json work.monitor.json`) reads as this monitor's.
    fileprivate func named(_ name: String) -> MonitorSnapshot {
        guard self.name != name else { return self }
        var renamed = self
        renamed.name = name
        for index in renamed.conditions.indices {
            renamed.conditions[index].lastEvent = renamed.conditions[index].lastEvent?.ofMonitor(name)
        }
        renamed.outbox = renamed.outbox.map { GeofenceDelivery(sequence: $0.sequence, event: $0.event.ofMonitor(name)) }
        return renamed
    }
}

extension GeofenceEvent {
    /// The same event, of the monitor `name`.
    fileprivate func ofMonitor(_ name: String) -> GeofenceEvent {
        GeofenceEvent(
            monitor: name, identifier: identifier, state: state, previousState: previousState, fix: fix,
            accuracyLimited: accuracyLimited)
    }
}
