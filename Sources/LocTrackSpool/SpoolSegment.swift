/// What the spool keeps in memory of one segment file: where its records end, not the
/// records themselves (those are read back with pread when the publisher asks). Four
/// bytes per message, so a day offline at 1 Hz costs about 340 KiB however large the
/// messages are, and the spool's byte limit bounds it.
struct SpoolSegment: Equatable {
    /// The sequence number of the segment's first record, also its file name.
    let firstSequence: UInt64
    /// The path of the file: `DIR/<firstSequence, 20 digits>.seg`.
    let path: String
    /// The end offset of each record, in order: record `i` spans `start(of: i)..<ends[i]`.
    /// 32 bits suffice: a segment grows past its target size only by one record, and a
    /// record is at most MQTT's 256 MiB.
    var ends: [UInt32] = []

    init(firstSequence: UInt64, directory: String) {
        self.firstSequence = firstSequence
        path = directory + "/" + Self.fileName(firstSequence)
    }

    var count: Int { ends.count }

    /// One past the sequence number of the last record.
    var endSequence: UInt64 { firstSequence + UInt64(ends.count) }

    /// The bytes of its records (also the file's size once recovered).
    var size: Int64 { Int64(ends.last ?? 0) }

    /// Where record `index` starts in the file.
    func start(of index: Int) -> Int64 { index == 0 ? 0 : Int64(ends[index - 1]) }

    /// The bytes of record `index`, header included.
    func recordSize(_ index: Int) -> Int64 { Int64(ends[index]) - start(of: index) }

    /// `00000000000000000042.seg`: 20 digits hold any UInt64 and sort like the numbers.
    static func fileName(_ firstSequence: UInt64) -> String {
        let digits = String(firstSequence)
        return String(repeating: "0", count: 20 - digits.count) + digits + ".seg"
    }

    /// The first sequence a segment file's name gives, or nil for any other name.
    static func firstSequence(fromFileName name: String) -> UInt64? {
        guard name.utf8.count == 24, name.hasSuffix(".seg") else { return nil }
        let digits = name.dropLast(4)
        guard digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return UInt64(digits)
    }
}
