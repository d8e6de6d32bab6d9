internal import CGlibcExtras
import Glibc

// Thin wrappers over the file system calls the monitor's state store makes, in the
// style of Syscalls.swift: EINTR retried through `retryingInterrupts`, failures
// thrown as `Errno`, every descriptor opened close-on-exec (so a child the CLI might
// start never inherits a lock). Internal, not package: their Glibc types (`mode_t`,
// `stat`) are imported internally, and only the store in this module needs them.

/// Opens `path` with `flags | O_CLOEXEC`; `mode` applies when `O_CREAT` creates it.
func openFile(_ path: String, flags: Int32, mode: mode_t = 0) throws(Errno) -> Int32 {
    let descriptor = retryingInterrupts { open(path, flags | O_CLOEXEC, mode) }
    guard descriptor >= 0 else { throw .current }
    return descriptor
}

/// Closes `descriptor`, reporting the error a delayed write may surface here (NFS, quotas).
/// Not retried on EINTR: Linux releases the descriptor even then, and a second close
/// could close a descriptor another thread has just been given.
func closeFile(_ descriptor: Int32) throws(Errno) {
    guard close(descriptor) == 0 else { throw .current }
}

/// `flock(2)`: `LOCK_SH` or `LOCK_EX`, optionally `| LOCK_NB`. A blocking lock waits
/// through signals. The lock belongs to the open file description, so two `openFile`
/// calls on one path exclude each other even within one process.
func lockFile(_ descriptor: Int32, _ operation: Int32) throws(Errno) {
    guard retryingInterrupts({ flock(descriptor, operation) }) == 0 else { throw .current }
}

/// `fsync(2)`: the file's data and metadata are on the device when it returns.
func syncFile(_ descriptor: Int32) throws(Errno) {
    guard retryingInterrupts({ fsync(descriptor) }) == 0 else { throw .current }
}

/// `fdatasync(2)`: the file's data (and its size), not the rest of its metadata: what
/// an append needs to survive a power cut.
func syncData(_ descriptor: Int32) throws(Errno) {
    guard retryingInterrupts({ fdatasync(descriptor) }) == 0 else { throw .current }
}

/// The byte at `offset` (`pread(2)`), or nil past the end.
func byte(at offset: Int64, of descriptor: Int32) throws(Errno) -> UInt8? {
    var value: UInt8 = 0
    let count = retryingInterrupts { pread(descriptor, &value, 1, off_t(offset)) }
    guard count >= 0 else { throw .current }
    return count == 1 ? value : nil
}

/// Syncs the directory `path`, so a `rename` into it survives a power cut.
func syncDirectory(_ path: String) throws(Errno) {
    let descriptor = try openFile(path, flags: O_RDONLY | O_DIRECTORY)
    defer { close(descriptor) }
    try syncFile(descriptor)
}

/// `rename(2)`: atomically replaces `target` (same file system only).
func renameFile(_ source: String, over target: String) throws(Errno) {
    guard rename(source, target) == 0 else { throw .current }
}

/// `unlink(2)`.
func removeFile(_ path: String) throws(Errno) {
    guard unlink(path) == 0 else { throw .current }
}

/// Creates `path` and every missing directory above it with `mode` (`mkdir -p`).
/// Directories that exist are left as they are, whatever their mode.
func makeDirectories(_ path: String, mode: mode_t) throws(Errno) {
    if let status = try? fileStatus(path), status.st_mode & S_IFMT == S_IFDIR { return }
    var prefix = path.hasPrefix("/") ? "/" : ""
    for component in path.split(separator: "/") {
        prefix += component
        if mkdir(prefix, mode) != 0, errno != EEXIST { throw .current }
        prefix += "/"
    }
}

/// `stat(2)` of `path`, following symbolic links.
func fileStatus(_ path: String) throws(Errno) -> stat {
    var status = stat()
    guard stat(path, &status) == 0 else { throw .current }
    return status
}

/// What identifies one version of a file: `stat(2)`'s device, inode, size and
/// modification time (nanoseconds since 1970).
///
/// Read here, where CGlibcExtras is imported: Swift attributes `struct stat` and
/// `struct timespec` to whichever module included their headers first, so code
/// elsewhere could not rely on reading their members.
func fileIdentity(_ path: String) throws(Errno) -> (device: UInt64, inode: UInt64, size: Int64, modified: Int64) {
    var status = try fileStatus(path)
    return (UInt64(status.st_dev), UInt64(status.st_ino), Int64(status.st_size),
            Int64(loctrack_modification_nanoseconds(&status)))
}

/// Everything from `descriptor`'s offset to its end.
func readToEnd(_ descriptor: Int32) throws(Errno) -> [UInt8] {
    var contents: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
        let count = chunk.withUnsafeMutableBytes { buffer in
            retryingInterrupts { read(descriptor, buffer.baseAddress, buffer.count) }
        }
        if count < 0 { throw .current }
        if count == 0 { return contents }
        contents.append(contentsOf: chunk[..<count])
    }
}
