import Glibc

/// A new pipe (`pipe(2)`), both ends close-on-exec, and non-blocking when `nonBlocking`.
/// The caller owns both numbers.
/// - Returns: the read end and the write end.
package func makePipe(nonBlocking: Bool = false) throws(Errno) -> (read: Int32, write: Int32) {
    var descriptors: [Int32] = [-1, -1]
    guard pipe(&descriptors) == 0 else { throw .current }
    for descriptor in descriptors {
        setCloseOnExec(descriptor)
        if nonBlocking { setNonBlocking(descriptor) }
    }
    return (descriptors[0], descriptors[1])
}

/// `PIPE_BUF`: the most bytes one `write(2)` to a pipe puts in whole, never interleaved
/// with another writer's.
package var pipeAtomicWriteSize: Int { Int(PIPE_BUF) }
