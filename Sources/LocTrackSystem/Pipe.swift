import CGlibcExtras
import Glibc

/// The two ends of a pipe, each closing itself.
@frozen package struct PipeEnds: ~Copyable {
    package var read: FileDescriptor
    package var write: FileDescriptor
}

/// A new pipe (`pipe2(2)`), both ends close-on-exec from the start, and non-blocking when
/// `nonBlocking`.
package func makePipe(nonBlocking: Bool = false) throws(Errno) -> PipeEnds {
    let descriptors = try makeRawPipe(nonBlocking: nonBlocking)
    return PipeEnds(read: FileDescriptor(owning: descriptors.read), write: FileDescriptor(owning: descriptors.write))
}

/// The same pipe as plain descriptors, which the caller closes.
package func makeRawPipe(nonBlocking: Bool = false) throws(Errno) -> (read: Int32, write: Int32) {
    var descriptors: [Int32] = [-1, -1]
    _ = try valueOrErrno { loctrack_pipe2(&descriptors, O_CLOEXEC | (nonBlocking ? O_NONBLOCK : 0)) }
    return (descriptors[0], descriptors[1])
}

/// `PIPE_BUF`: the most bytes one `write(2)` to a pipe puts in whole, never interleaved
/// with another writer's.
package var pipeAtomicWriteSize: Int { Int(PIPE_BUF) }
