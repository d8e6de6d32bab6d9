import LocTrackSystem

extension OdometerStore {
    /// The folder of the state file.
    var directory: String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Replaces the state file with `bytes`, atomically and durably, as the monitor's
    /// store does: under the exclusive lock, a new file beside it (`O_EXCL`, mode 0600),
    /// written and synced, renamed over the state file, and the folder synced so that the
    /// rename itself survives a power cut. On any failure the new file is removed and the
    /// old state stays as it was.
    func replaceFile(with bytes: [UInt8]) throws(OdometerStoreError) {
        try io(directory, "create the folder of") { () throws(Errno) in try makeDirectories(directory, mode: Self.directoryMode) }
        let lock = try io(lockPath, "open") { () throws(Errno) in
            try openFile(lockPath, [.readWrite, .create], mode: Self.fileMode)
        }
        try io(lockPath, "lock") { () throws(Errno) in try lockFile(lock.rawValue, .exclusive) }
        let temporary = temporaryPath
        try? removeFile(temporary)  // a leftover of a writer that died; usually absent
        let file = try io(temporary, "create") { () throws(Errno) in
            try openFile(temporary, [.writeOnly, .create, .exclusive], mode: Self.fileMode)
        }
        let descriptor = file.rawValue
        do throws(OdometerStoreError) {
            try io(temporary, "write") { () throws(Errno) in try writeAll(descriptor, bytes) }
            try io(temporary, "sync") { () throws(Errno) in try syncFile(descriptor) }
        } catch {
            _ = consume file
            try? removeFile(temporary)
            throw error
        }
        do throws(OdometerStoreError) {
            do throws(Errno) { try file.close() } catch {
                throw OdometerStoreError.fileIO(path: temporary, operation: "close", errorNumber: error.code)
            }
            try io(path, "rename \(temporary) over") { () throws(Errno) in try renameFile(temporary, over: path) }
        } catch {
            try? removeFile(temporary)
            throw error
        }
        do {
            try syncDirectory(directory)
        } catch where error == .invalidArgument {
            // The file system cannot sync a directory (some FUSE ones): the rename is done.
        } catch {
            throw .fileIO(path: directory, operation: "sync the folder of", errorNumber: error.code)
        }
        _ = consume lock  // the lock is released as the descriptor closes, after the rename
    }

    /// Runs a system call wrapper, turning its `Errno` into `.fileIO` for `path`.
    func io<Value: ~Copyable>(_ path: String, _ operation: String, _ body: () throws(Errno) -> Value) throws(OdometerStoreError) -> Value {
        do {
            return try body()
        } catch {
            throw .fileIO(path: path, operation: operation, errorNumber: error.code)
        }
    }
}
