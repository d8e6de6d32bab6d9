package import LocTrack
import LocTrackSystem

extension MonitorStore {
    /// Replaces the state file with `snapshot`, atomically and durably (the exclusive
    /// lock held; ``replaceFileDurably(_:with:temporary:mode:folder:)``): a reader sees
    /// the old state or the new, and on any failure the old state stays as it was.
    func write(_ snapshot: MonitorSnapshot) throws(GeofenceError) {
        let bytes = MonitorFileFormat.encode(snapshot)
        do {
            try replaceFileDurably(statePath, with: bytes, temporary: temporaryPath, mode: Self.fileMode, folder: directory)
        } catch {
            throw .stateFileIO(path: error.path, operation: error.operation, errorNumber: error.errno.code)
        }
    }

    /// Appends one journal line with the decisions in `conditions`, the events they
    /// caused and the deliveries confirmed (``MonitorFileFormat``), if the state file is
    /// still the version `expected`, under the exclusive lock: a running monitor's save,
    /// a few hundred bytes instead of the whole file.
    ///
    /// The line is written with one `write` and `fdatasync`ed. A power cut or SIGKILL in
    /// between leaves a last line without its newline, which readers leave out.
    /// - Returns: the bytes appended; nil, writing nothing, when the file changed, is
    ///   missing, or ends in an interrupted line: then write it whole.
    package func append(
        _ conditions: [MonitoredCondition], events: [GeofenceDelivery] = [], delivered: Int? = nil,
        lastFixTime: Timestamp?, ifStill expected: FileSignature?
    ) throws(GeofenceError) -> Int? {
        guard let expected else { return nil }
        return try withExclusiveLock { () throws(GeofenceError) -> Int? in
            guard signature() == expected else { return nil }
            let file = try io(statePath, "open") { () throws(Errno) in
                try openFile(statePath, [.readWrite, .append])
            }
            let descriptor = file.rawValue
            let last = try io(statePath, "read") { () throws(Errno) in try byte(at: expected.size - 1, of: descriptor) }
            guard last == UInt8(ascii: "\n") else { return nil }
            let line = MonitorFileFormat.encodeDecisions(
                conditions, events: events, delivered: delivered, lastFixTime: lastFixTime)
            try io(statePath, "append to") { () throws(Errno) in
                try writeAll(descriptor, line)
                try syncData(descriptor)
            }
            return line.count
        }
    }

    /// Runs a system call wrapper, turning its `Errno` into `.stateFileIO` for `path`.
    func io<Value: ~Copyable>(_ path: String, _ operation: String, _ body: () throws(Errno) -> Value) throws(GeofenceError) -> Value {
        do {
            return try body()
        } catch {
            throw .stateFileIO(path: path, operation: operation, errorNumber: error.code)
        }
    }
}
