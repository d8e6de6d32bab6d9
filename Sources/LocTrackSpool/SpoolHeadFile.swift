import LocTrackSystem

/// `DIR/head`: the durable head, the first sequence not yet acknowledged by the broker.
///
/// 32 bytes: two 16-byte slots, each `["LTSH"][u64 LE head][u32 LE CRC-32 of the first
/// 12 bytes]`. The head is the larger value of the slots whose checksum matches. Each
/// write replaces the slot holding the older value (`pwrite` of 16 bytes, `fdatasync`),
/// so a write torn by a power cut spoils at most that slot, and the other still holds
/// the previous head: at worst some acknowledged messages are sent again, never lost.
///
/// Why not a new file renamed over the old one: acknowledgements are flushed as often
/// as fixes arrive (1 Hz or more), and one small write and one `fdatasync` cost far less
/// than create, write, `fsync`, `rename` and `fsync` of the folder, every second. The
/// file is created once, atomically, by a rename, so it is always whole.
struct SpoolHeadFile {
    static let slotSize = 16
    static let magic: [UInt8] = Array("LTSH".utf8)

    let path: String
    /// Shared by the copies of this value, closed when the last one goes.
    private let file: SharedDescriptor
    private var descriptor: Int32 { file.rawValue }
    /// The slot the next write goes to: the one holding the older value.
    private var nextSlot: Int

    /// The head file of `directory` and the head it holds, or nil when there is none yet.
    static func open(directory: String) throws(SpoolError) -> (file: SpoolHeadFile, head: UInt64)? {
        let path = directory + "/head"
        let file: SharedDescriptor
        do {
            file = SharedDescriptor(try openFile(path, .readWrite))
        } catch where error == .noSuchFile {
            return nil
        } catch {
            throw .io(path, "open", error.code)
        }
        let descriptor = file.rawValue
        let bytes = try io(path, "read") { () throws(Errno) in try readToEnd(descriptor) }
        guard bytes.count == 2 * slotSize else {
            throw .corrupt(path, at: nil, "\(bytes.count) bytes instead of \(2 * slotSize)")
        }
        let first = decode(Array(bytes[0..<slotSize])), second = decode(Array(bytes[slotSize..<(2 * slotSize)]))
        // The larger valid value; the next write overwrites a spoiled slot, else the one with
        // the smaller (older) value. (Spelled out per slot rather than mapped over the two:
        // Debian's swiftlang 6.2.3, make deb-arm64, stops on an assertion in its optimizer,
        // CSE's "unexpected phi on access path", on the map over slices of `bytes`.)
        switch (first, second) {
        case let (first?, second?):
            return (SpoolHeadFile(path: path, file: file, nextSlot: first <= second ? 0 : 1), max(first, second))
        case let (first?, nil):
            return (SpoolHeadFile(path: path, file: file, nextSlot: 1), first)
        case let (nil, second?):
            return (SpoolHeadFile(path: path, file: file, nextSlot: 0), second)
        case (nil, nil):
            throw .corrupt(path, at: 0, "neither copy of the head passes its checksum")
        }
    }

    /// Creates the head file of `directory` holding `head` in both slots: written to
    /// `head.tmp`, synced, renamed, and the folder synced, so it appears whole or not at all.
    static func create(directory: String, head: UInt64) throws(SpoolError) -> SpoolHeadFile {
        let path = directory + "/head", temporary = directory + "/head.tmp"
        try? removeFile(temporary)  // left by a crash during an earlier creation
        let bytes = encode(head) + encode(head)
        try io(temporary, "create") { () throws(Errno) in
            let file = try openFile(temporary, [.writeOnly, .create, .exclusive], mode: 0o600)
            try writeAll(file.rawValue, bytes)
            try syncFile(file.rawValue)
        }
        try io(path, "rename \(temporary) over") { () throws(Errno) in try renameFile(temporary, over: path) }
        try io(directory, "sync the folder") { () throws(Errno) in try syncDirectory(directory) }
        guard let (file, _) = try open(directory: directory) else { throw .io(path, "open", Errno.noSuchFile.code) }
        return file
    }

    /// Writes `head` into one slot, and `fdatasync`s it when `sync` is true. Unsynced,
    /// the write survives the process (a SIGKILL: the kernel has it), not a power cut.
    mutating func write(_ head: UInt64, sync: Bool = true) throws(SpoolError) {
        let slot = Self.encode(head), offset = Int64(nextSlot * Self.slotSize)
        try io(path, "write") { () throws(Errno) in
            try writeAll(descriptor, slot, at: offset)
            if sync { try syncData(descriptor) }
        }
        nextSlot = 1 - nextSlot
    }

    /// `fdatasync`s what ``write(_:sync:)`` left unsynced.
    func sync() throws(SpoolError) {
        try io(path, "sync") { () throws(Errno) in try syncData(descriptor) }
    }

    static func encode(_ head: UInt64) -> [UInt8] {
        var slot = magic
        SpoolRecord.appendLittleEndian(head, to: &slot)
        SpoolRecord.appendLittleEndian(CRC32.checksum(slot), to: &slot)
        return slot
    }

    /// The head in `slot`, or nil when its magic or checksum is wrong.
    static func decode(_ slot: [UInt8]) -> UInt64? {
        guard Array(slot[0..<4]) == magic,
              CRC32.checksum(slot[0..<12]) == UInt32(SpoolRecord.readLittleEndian(slot, at: 12, size: 4)) else { return nil }
        return SpoolRecord.readLittleEndian(slot, at: 4, size: 8)
    }
}
