import LocTrackSystem

extension OdometerStore {
    /// The folder of the state file.
    var directory: String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Replaces the state file with `bytes`, atomically and durably, as the monitor's
    /// store does (``replaceFileDurably(_:with:temporary:mode:folder:)``), under the
    /// exclusive lock on `<path>.lock`, so that two writers never share the new file.
    func replaceFile(with bytes: [UInt8]) throws(OdometerStoreError) {
        try io(directory, "create the folder of") { () throws(Errno) in try makeDirectories(directory, mode: Self.directoryMode) }
        let lock = try io(lockPath, "open") { () throws(Errno) in
            try openFile(lockPath, [.readWrite, .create], mode: Self.fileMode)
        }
        try io(lockPath, "lock") { () throws(Errno) in try lockFile(lock.rawValue, .exclusive) }
        do {
            try replaceFileDurably(path, with: bytes, temporary: temporaryPath, mode: Self.fileMode, folder: directory)
        } catch {
            throw .fileIO(path: error.path, operation: error.operation, errorNumber: error.errno.code)
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
