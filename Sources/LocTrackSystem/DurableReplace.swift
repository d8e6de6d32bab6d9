/// Why ``replaceFileDurably(_:with:temporary:mode:folder:)`` failed: the file it was working
/// on, what it was doing to it, and the system's error. Each store turns it into its own error.
package struct DurableReplaceError: Error, Sendable {
    package let path: String
    package let operation: String
    package let errno: Errno
}

/// Replaces the file at `path` with `bytes`, atomically and durably, as a state file must
/// be: a new file at `temporary` (`O_EXCL`, `mode`), written and synced, renamed over
/// `path`, and `folder` synced so that the rename itself survives a power cut. A reader
/// sees the old contents or the new, never half of them. On any failure the new file is
/// removed and the old one stays as it was.
///
/// The caller holds the lock that keeps two writers from sharing `temporary` (the monitor's
/// and the odometer's stores each have one).
package func replaceFileDurably(
    _ path: String, with bytes: [UInt8], temporary: String, mode: UInt32, folder: String
) throws(DurableReplaceError) {
    func attempt<Value: ~Copyable>(
        _ subject: String, _ operation: String, _ body: () throws(Errno) -> Value
    ) throws(DurableReplaceError) -> Value {
        do {
            return try body()
        } catch {
            throw DurableReplaceError(path: subject, operation: operation, errno: error)
        }
    }
    try? removeFile(temporary)  // a leftover of a writer that died; usually absent
    let file = try attempt(temporary, "create") { () throws(Errno) in
        try openFile(temporary, [.writeOnly, .create, .exclusive], mode: mode)
    }
    let descriptor = file.rawValue
    do throws(DurableReplaceError) {
        try attempt(temporary, "write") { () throws(Errno) in try writeAll(descriptor, bytes) }
        try attempt(temporary, "sync") { () throws(Errno) in try syncFile(descriptor) }
    } catch {
        _ = consume file
        try? removeFile(temporary)
        throw error
    }
    do throws(DurableReplaceError) {
        do throws(Errno) { try file.close() } catch {
            throw DurableReplaceError(path: temporary, operation: "close", errno: error)
        }
        try attempt(path, "rename \(temporary) over") { () throws(Errno) in try renameFile(temporary, over: path) }
    } catch {
        try? removeFile(temporary)
        throw error
    }
    do {
        try syncDirectory(folder)
    } catch where error == .invalidArgument {
        // The file system cannot sync a directory (some FUSE ones): the rename is done.
    } catch {
        throw DurableReplaceError(path: folder, operation: "sync the folder", errno: error)
    }
}
