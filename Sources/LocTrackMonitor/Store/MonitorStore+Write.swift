package import LocTrack
import LocTrackSystem

extension MonitorStore {
    /// Replaces the state file with `snapshot`, atomically and durably (the exclusive
    /// lock held): a new file beside it (`O_EXCL`, mode 0600), written and synced, renamed
    /// over the state file, and the folder synced so the rename itself survives a power
    /// cut. On any failure the new file is removed and the old state stays as it was.
    func write(_ snapshot: MonitorSnapshot) throws(GeofenceError) {
        let bytes = MonitorFileFormat.encode(snapshot)
        let temporary = temporaryPath
        try? removeFile(temporary)  // a leftover of a writer that died; usually absent
        let file = try io(temporary, "create") { () throws(Errno) in
            try openFile(temporary, [.writeOnly, .create, .exclusive], mode: Self.fileMode)
        }
        let descriptor = file.rawValue
        do {
            try io(temporary, "write") { () throws(Errno) in
                try writeAll(descriptor, bytes)
            }
            try io(temporary, "sync") { () throws(Errno) in try syncFile(descriptor) }
        } catch {
            _ = consume file
            try? removeFile(temporary)
            throw error
        }
        do throws(GeofenceError) {
            do throws(Errno) { try file.close() } catch {
                throw GeofenceError.stateFileIO(path: temporary, operation: "close", errorNumber: error.code)
            }
            try io(statePath, "rename \(temporary) over") { () throws(Errno) in try renameFile(temporary, over: statePath) }
        } catch {
            try? removeFile(temporary)
            throw error
        }
        do {
            try syncDirectory(directory)
        } catch where error == .invalidArgument {
            // The file system cannot sync a directory (some FUSE ones): the rename is done.
        } catch {
            throw .stateFileIO(path: directory, operation: "sync the directory", errorNumber: error.code)
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
