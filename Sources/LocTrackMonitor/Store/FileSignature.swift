import LocTrack

/// What identifies one version of a file without reading it: a running monitor compares
/// signatures to notice that `add` or `remove` replaced the state file. The atomic
/// replace gives every write a new inode, so even a change within the file system's
/// timestamp resolution and of equal size is seen.
package struct FileSignature: Sendable, Hashable {
    package let device: UInt64
    package let inode: UInt64
    package let size: Int64
    package let modificationSeconds: Int64
    package let modificationNanoseconds: Int64
}
