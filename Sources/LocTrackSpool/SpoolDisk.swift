import LocTrackSystem

/// The spool's system calls on segment files, as ``Spool`` carries out what
/// ``SpoolState`` planned: never called with the state's mutex held. Each one fails with
/// a ``SpoolError`` naming the file.
enum SpoolDisk {
    /// Creates the segment file `path` (mode 0600; it must not exist) and syncs the
    /// folder, so that the new file, and the records about to be written to it, survive a
    /// power cut.
    static func createSegment(_ path: String, in directory: String) throws(SpoolError) -> SpoolFile {
        let file = try io(path, "create") { () throws(Errno) in
            try openFile(path, [.readWrite, .create, .exclusive], mode: 0o600)
        }
        do {
            try io(directory, "sync the folder") { () throws(Errno) in try syncDirectory(directory) }
        } catch {
            _ = consume file
            try? removeFile(path)
            throw error
        }
        return SpoolFile(path: path, file: file)
    }

    /// Writes `bytes`, whole records, at `offset` of `file` (its size: only the appender
    /// writes there), and `fdatasync`s it when `sync` is true. On an error, what part of
    /// the bytes reached the file is cut off again. Should that fail too, the next append
    /// overwrites it from the same offset, and recovery cuts off any rest.
    static func write(_ bytes: [UInt8], to file: SpoolFile, at offset: Int64, sync: Bool) throws(SpoolError) {
        do {
            try writeAll(file.descriptor, bytes, at: offset)
            if sync { try syncData(file.descriptor) }
        } catch {
            try? truncateFile(file.descriptor, to: offset)
            throw .io(file.path, "append to", error.code)
        }
    }

    /// `fdatasync`s `file`.
    static func sync(_ file: SpoolFile) throws(SpoolError) {
        try io(file.path, "sync") { () throws(Errno) in try syncData(file.descriptor) }
    }

    /// Deletes the segment file `path`; one already gone is no error. The deletion needs
    /// no folder sync: one that a power cut undoes is redone when the spool is next opened.
    static func delete(_ path: String) throws(SpoolError) {
        do {
            try removeFile(path)
        } catch where error == .noSuchFile {
            // Already gone.
        } catch {
            throw .io(path, "delete", error.code)
        }
    }

    /// Whether `error` is what ``read(_:)`` throws when the segment file is gone: the
    /// spool deleted it after the read was planned, when it may (``Spool/messages(from:limit:)``).
    static func isMissingFile(_ error: SpoolError) -> Bool {
        error.kind == .io(operation: "open", errorNumber: Errno.noSuchFile.code)
    }

    /// The messages `read` wants, read with one `pread` of its records (through the last
    /// segment's open file, or a descriptor opened for this read), each checked against
    /// its CRC again: the disk may have changed under the spool since it was opened.
    static func read(_ read: SpoolRead) throws(SpoolError) -> [(sequence: UInt64, message: SpoolMessage)] {
        guard let lastEnd = read.ends.last else { return [] }
        let path = read.path, start = read.start, count = Int(Int64(lastEnd) - start)
        let bytes: [UInt8]
        if let file = read.file {
            bytes = try io(path, "read") { () throws(Errno) in try readBytes(file.descriptor, at: start, count: count) }
        } else {
            let opened = try io(path, "open") { () throws(Errno) in try openFile(path, .readOnly) }
            let descriptor = opened.rawValue
            bytes = try io(path, "read") { () throws(Errno) in try readBytes(descriptor, at: start, count: count) }
        }
        var result: [(sequence: UInt64, message: SpoolMessage)] = []
        result.reserveCapacity(read.wanted.count)
        var wanted = read.wanted[...]
        var offset = 0
        for (position, recordEnd) in read.ends.enumerated() {
            guard case .valid(let end) = SpoolRecord.check(bytes, at: offset), Int64(end) + start == Int64(recordEnd) else {
                let reason: String
                switch SpoolRecord.check(bytes, at: offset) {
                case .invalid(let why): reason = why
                case .truncated: reason = "the file ends inside a record it held when the spool was opened"
                case .valid: reason = "a record of another length than when the spool was opened"
                }
                throw .corrupt(path, at: start + Int64(offset), reason)
            }
            let sequence = read.firstSequence + UInt64(position)
            if wanted.first == sequence {
                result.append((sequence, SpoolRecord.decode(bytes, at: offset)))
                wanted.removeFirst()
            }
            offset = end
        }
        return result
    }
}
