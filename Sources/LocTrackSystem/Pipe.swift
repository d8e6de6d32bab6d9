import Glibc

/// The two ends of a pipe, each closing itself.
@frozen package struct PipeEnds: ~Copyable {
    package var read: FileDescriptor
    package var write: FileDescriptor
}

/// A new pipe (`pipe(2)`), both ends close-on-exec, and non-blocking when `nonBlocking`.
package func makePipe(nonBlocking: Bool = false) throws(Errno) -> PipeEnds {
    var descriptors: [Int32] = [-1, -1]
    _ = try valueOrErrno { pipe(&descriptors) }
    let ends = PipeEnds(read: FileDescriptor(owning: descriptors[0]), write: FileDescriptor(owning: descriptors[1]))
    for descriptor in descriptors {
        try setCloseOnExec(descriptor)
        if nonBlocking { try setNonBlocking(descriptor) }
    }
    return ends
}

/// `PIPE_BUF`: the most bytes one `write(2)` to a pipe puts in whole, never interleaved
/// with another writer's.
package var pipeAtomicWriteSize: Int { Int(PIPE_BUF) }
