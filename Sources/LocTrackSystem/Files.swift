internal import CGlibcExtras
import Glibc

// Thin wrappers over the file system calls of the monitor's state store, the MQTT
// spool and the track writer, in the style of swift-system's Syscalls.swift: EINTR
// retried and failures thrown as `Errno` through `valueOrErrno`, every descriptor
// opened close-on-exec (so a child the CLI starts never inherits a lock) and owned by a
// `FileDescriptor` that closes itself; the other wrappers borrow its number. Plain Swift
// types in the signatures (`UInt32` for `mode_t`): Glibc is imported internally, so its
// type names cannot appear in package declarations. `fileStatus` stays internal: it
// returns Glibc's `stat`.

/// How ``openFile(_:_:mode:)`` opens a file: `open(2)`'s access mode and flags.
/// The empty set is read-only (`O_RDONLY` is 0).
package struct OpenOptions: OptionSet, Sendable {
    package let rawValue: Int32

    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// `O_RDONLY`: reading only (the empty set).
    package static var readOnly: OpenOptions { [] }
    /// `O_WRONLY`: writing only.
    package static var writeOnly: OpenOptions { OpenOptions(rawValue: O_WRONLY) }
    /// `O_RDWR`: reading and writing.
    package static var readWrite: OpenOptions { OpenOptions(rawValue: O_RDWR) }
    /// `O_CREAT`: create the file if it is missing, with the call's mode.
    package static var create: OpenOptions { OpenOptions(rawValue: O_CREAT) }
    /// `O_EXCL`: with `create`, fail with `EEXIST` when the file exists.
    package static var exclusive: OpenOptions { OpenOptions(rawValue: O_EXCL) }
    /// `O_APPEND`: every write goes to the end.
    package static var append: OpenOptions { OpenOptions(rawValue: O_APPEND) }
    /// `O_DIRECTORY`: fail unless `path` is a directory.
    package static var directory: OpenOptions { OpenOptions(rawValue: O_DIRECTORY) }
    /// `O_NONBLOCK`: opening a FIFO does not wait for a writer (for a look at what a path is).
    package static var nonBlocking: OpenOptions { OpenOptions(rawValue: O_NONBLOCK) }
}

/// Opens `path` with `options`, always close-on-exec; `mode` applies when `.create`
/// creates it. The C function is `open(2)` with `O_CLOEXEC`, retried on EINTR.
/// - Returns: the open file, closed when the value goes away.
package func openFile(_ path: String, _ options: OpenOptions, mode: UInt32 = 0) throws(Errno) -> FileDescriptor {
    FileDescriptor(owning: try valueOrErrno { open(path, options.rawValue | O_CLOEXEC, mode) })
}

/// The kind of ``lockFile(_:_:waiting:)`` lock.
package enum FileLock: Sendable {
    /// `LOCK_SH`: many holders, no exclusive one.
    case shared
    /// `LOCK_EX`: one holder.
    case exclusive
}

/// Locks the whole file behind `descriptor`. A lock that waits (`waiting`) waits through
/// signals; one that does not throws ``Errno/wouldBlock`` when another holds it. The lock
/// belongs to the open file description, so two `openFile` calls on one path exclude
/// each other even within one process. The C function is `flock(2)`.
package func lockFile(_ descriptor: Int32, _ lock: FileLock, waiting: Bool = true) throws(Errno) {
    let operation = (lock == .shared ? LOCK_SH : LOCK_EX) | (waiting ? 0 : LOCK_NB)
    _ = try valueOrErrno { flock(descriptor, operation) }
}

/// `fsync(2)`: the file's data and metadata are on the device when it returns.
package func syncFile(_ descriptor: Int32) throws(Errno) {
    _ = try valueOrErrno { fsync(descriptor) }
}

/// `fdatasync(2)`: the file's data (and its size), not the rest of its metadata: what
/// an append needs to survive a power cut.
package func syncData(_ descriptor: Int32) throws(Errno) {
    _ = try valueOrErrno { fdatasync(descriptor) }
}

/// The byte at `offset` (`pread(2)`), or nil past the end.
package func byte(at offset: Int64, of descriptor: Int32) throws(Errno) -> UInt8? {
    var value: UInt8 = 0
    let count = try valueOrErrno { pread(descriptor, &value, 1, off_t(offset)) }
    return count == 1 ? value : nil
}

/// Syncs the directory `path`, so a `rename` into it survives a power cut.
package func syncDirectory(_ path: String) throws(Errno) {
    let directory = try openFile(path, [.readOnly, .directory])
    try syncFile(directory.rawValue)
}

/// `rename(2)`: atomically replaces `target` (same file system only).
package func renameFile(_ source: String, over target: String) throws(Errno) {
    _ = try valueOrErrno { rename(source, target) }
}

/// `unlink(2)`.
package func removeFile(_ path: String) throws(Errno) {
    _ = try valueOrErrno { unlink(path) }
}

/// Creates `path` and every missing directory above it with `mode` (`mkdir -p`).
/// Directories that exist are left as they are, whatever their mode.
package func makeDirectories(_ path: String, mode: UInt32) throws(Errno) {
    if let status = try? fileStatus(path), status.st_mode & S_IFMT == S_IFDIR { return }
    var prefix = path.hasPrefix("/") ? "/" : ""
    for component in path.split(separator: "/") {
        prefix += component
        do throws(Errno) { _ = try valueOrErrno { mkdir(prefix, mode) } } catch {
            if error != .fileExists { throw error }
        }
        prefix += "/"
    }
}

/// `stat(2)` of `path`, following symbolic links.
func fileStatus(_ path: String) throws(Errno) -> stat {
    var status = stat()
    _ = try valueOrErrno { stat(path, &status) }
    return status
}

/// What identifies one version of a file: `stat(2)`'s device, inode, size and
/// modification time (nanoseconds since 1970).
///
/// Read here, where CGlibcExtras is imported: Swift attributes `struct stat` and
/// `struct timespec` to whichever module included their headers first, so code
/// elsewhere could not rely on reading their members.
package func fileIdentity(_ path: String) throws(Errno) -> (device: UInt64, inode: UInt64, size: Int64, modified: Int64) {
    var status = try fileStatus(path)
    return (UInt64(status.st_dev), UInt64(status.st_ino), Int64(status.st_size),
            Int64(loctrack_modification_nanoseconds(&status)))
}

/// What ``descriptorStatus(_:)`` reports of an open file.
package struct DescriptorStatus: Equatable, Sendable {
    /// The permission bits (`st_mode & 07777`): `0o600` is read and write for the owner only.
    package let permissions: UInt32
    /// Whether it is a regular file (not a directory, a device, a FIFO or a socket).
    package let isRegularFile: Bool
    package let size: Int64
}

/// `fstat(2)` of `descriptor`: its permissions, kind and size. Checking the file that was
/// opened (not its name again) leaves no gap between the check and the read.
package func descriptorStatus(_ descriptor: Int32) throws(Errno) -> DescriptorStatus {
    var status = stat()
    _ = try valueOrErrno { fstat(descriptor, &status) }
    return DescriptorStatus(permissions: UInt32(status.st_mode) & 0o7777,
                            isRegularFile: status.st_mode & S_IFMT == S_IFREG, size: Int64(status.st_size))
}

/// Whether `path` is a regular file this process may execute. The C functions are
/// `stat(2)` and `access(2)` with `X_OK`.
package func isExecutableFile(_ path: String) -> Bool {
    guard let status = try? fileStatus(path), status.st_mode & S_IFMT == S_IFREG else { return false }
    return access(path, X_OK) == 0
}

/// Whether `path` is a directory (following symbolic links). The C function is `stat(2)`.
package func isDirectory(_ path: String) -> Bool {
    guard let status = try? fileStatus(path) else { return false }
    return status.st_mode & S_IFMT == S_IFDIR
}

/// Everything from `descriptor`'s offset to its end.
package func readToEnd(_ descriptor: Int32) throws(Errno) -> [UInt8] {
    var contents: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
        let count = try valueOrErrno { chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) } }
        if count == 0 { return contents }
        contents.append(contentsOf: chunk[..<count])
    }
}

/// `ftruncate(2)`: cuts the file to `size` bytes (or extends it with zeros).
package func truncateFile(_ descriptor: Int32, to size: Int64) throws(Errno) {
    _ = try valueOrErrno { ftruncate(descriptor, off_t(size)) }
}

/// Up to `count` bytes from `offset` (`pread(2)` until `count` or end of file), without
/// moving the descriptor's offset, so readers and an appender can share a file.
package func readBytes(_ descriptor: Int32, at offset: Int64, count: Int) throws(Errno) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    var filled = 0
    while filled < count {
        let read = try valueOrErrno {
            bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + filled, count - filled, off_t(offset) + off_t(filled)) }
        }
        if read == 0 { break }
        filled += read
    }
    bytes.removeLast(count - filled)
    return bytes
}

/// Writes all of `bytes` at `offset` (`pwrite(2)`, however many calls it takes): the
/// position comes from the caller, so a failed write never moves where the next one goes.
package func writeAll(_ descriptor: Int32, _ bytes: [UInt8], at offset: Int64) throws(Errno) {
    var written = 0
    while written < bytes.count {
        written += try valueOrErrno {
            bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress! + written, $0.count - written, off_t(offset) + off_t(written)) }
        }
    }
}

/// The names in the directory `path` (`readdir(3)`), without "." and "..", unsorted.
package func listDirectory(_ path: String) throws(Errno) -> [String] {
    guard let stream = opendir(path) else { throw .current }
    defer { closedir(stream) }
    var names: [String] = []
    while true {
        errno = 0
        guard let entry = readdir(stream) else {
            if errno != 0 { throw .current }
            return names
        }
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        if name != ".", name != ".." { names.append(name) }
    }
}

/// Whether something exists at `path`. The C function is `access(2)` with `F_OK`.
package func fileExists(_ path: String) -> Bool {
    access(path, F_OK) == 0
}

/// Moves `descriptor`'s offset to the end of its file.
/// The C function is `lseek(2)` with `SEEK_END`.
/// - Returns: the file's size.
package func seekToEnd(_ descriptor: Int32) throws(Errno) -> Int64 {
    Int64(try valueOrErrno { lseek(descriptor, 0, SEEK_END) })
}
