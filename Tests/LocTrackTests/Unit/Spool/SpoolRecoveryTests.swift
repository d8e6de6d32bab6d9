import Foundation
@testable import LocTrackMQTT
@testable import LocTrackSpool
import Testing

@Suite("Spool: reopening, segments on disk, crashes and damage", .timeLimit(.minutes(1)))
struct SpoolRecoveryTests {
    typealias Fixture = SpoolFixture

    @Test("given acknowledgements flushed when the spool is reopened then only unacknowledged messages remain, sequences continue")
    func flushAndReopen() throws {
        try Fixture.withDirectory { directory in
            do {
                let spool = try Spool(directory: directory, limitBytes: 1 << 20)
                _ = try spool.append(Fixture.messages(0..<10))
                for sequence: UInt64 in [3, 0, 2, 1, 6] { spool.acknowledge(sequence) }
                try spool.flushAcknowledgements()
                spool.acknowledge(4)  // not flushed: sent again after a crash, as allowed
            }
            let spool = try Spool(directory: directory, limitBytes: 1 << 20)
            #expect(spool.firstUnacknowledged == 4)
            #expect(spool.nextSequence == 10)
            #expect(try Fixture.pending(spool) == Dictionary(uniqueKeysWithValues: (4..<10).map { (UInt64($0), Fixture.message($0)) }))
            #expect(try spool.append(Fixture.messages(10..<11)).firstSequence == 10)
        }
    }

    @Test("given small segments when appends roll over and acknowledgements are flushed then whole segments below the head are deleted")
    func segmentRolloverAndDeletion() throws {
        try Fixture.withDirectory { directory in
            let size = Fixture.recordSize(Fixture.message(0))  // 56 bytes: 4 records in 250
            let spool = try Spool(directory: directory, limitBytes: 1 << 20, segmentBytes: 250)
            _ = try spool.append(Fixture.messages(0..<6))
            _ = try spool.append(Fixture.messages(6..<10))
            let names = ["00000000000000000000.seg", "00000000000000000004.seg", "00000000000000000008.seg"]
            #expect(try Fixture.segmentFiles(directory) == names)
            #expect(try Fixture.fileSize(Fixture.segmentPath(directory, 4)) == 4 * size)
            #expect(try Fixture.fileSize(Fixture.segmentPath(directory, 8)) == 2 * size)
            for sequence: UInt64 in 0..<7 { spool.acknowledge(sequence) }
            try spool.flushAcknowledgements()
            #expect(try Fixture.segmentFiles(directory) == [names[1], names[2]])
            for sequence: UInt64 in 7..<10 { spool.acknowledge(sequence) }
            try spool.flushAcknowledgements()
            #expect(try Fixture.segmentFiles(directory) == [names[2]])  // the last, with room, stays for appending
            #expect(try spool.append(Fixture.messages(10..<12)).firstSequence == 10)
            #expect(try Fixture.segmentFiles(directory) == [names[2]])  // appended to it: 4 records now
            #expect(try Fixture.sequences(spool) == [10, 11])
            #expect(spool.pendingBytes == 2 * size)
            _ = try spool.append(Fixture.messages(12..<13))
            #expect(try Fixture.segmentFiles(directory) == [names[2], "00000000000000000012.seg"])
        }
    }

    @Test("given the last segment cut inside a record when reopened then the records before it stay and appends continue")
    func tornTailTruncated() throws {
        try Fixture.withDirectory { directory in
            let path = Fixture.segmentPath(directory, 0)
            do { _ = try Spool(directory: directory, limitBytes: 1 << 20).append(Fixture.messages(0..<5)) }
            Fixture.truncate(path, to: try Fixture.fileSize(path) - 3)
            do {
                let spool = try Spool(directory: directory, limitBytes: 1 << 20)
                #expect(try Fixture.sequences(spool) == [0, 1, 2, 3])
                #expect(try Fixture.fileSize(path) == 4 * Fixture.recordSize(Fixture.message(0)))
                #expect(try spool.append(Fixture.messages(4..<6)).firstSequence == 4)
            }
            let spool = try Spool(directory: directory, limitBytes: 1 << 20)
            #expect(try Fixture.pending(spool) == Dictionary(uniqueKeysWithValues: (0..<6).map { (UInt64($0), Fixture.message($0)) }))
        }
    }

    @Test("given garbage after the last record when reopened then it is cut off and appends continue",
          arguments: [[UInt8](repeating: 0, count: 40), [0xFF, 0xFF, 0xFF, 0x7F, 1, 2, 3], [9, 0, 0, 0, 1, 2, 3, 4, 0, 0, 0, 0, 0]])
    func garbageTailTruncated(garbage: [UInt8]) throws {
        try Fixture.withDirectory { directory in
            let path = Fixture.segmentPath(directory, 0)
            do { _ = try Spool(directory: directory, limitBytes: 1 << 20).append(Fixture.messages(0..<3)) }
            try Fixture.append(garbage, to: path)
            do {
                let spool = try Spool(directory: directory, limitBytes: 1 << 20)
                #expect(try Fixture.sequences(spool) == [0, 1, 2])
                _ = try spool.append(Fixture.messages(3..<4))
            }
            #expect(try Fixture.sequences(Spool(directory: directory, limitBytes: 1 << 20)) == [0, 1, 2, 3])
        }
    }

    @Test("given a flipped byte in a record followed by others when reopened then corrupt names the file and the record's offset")
    func corruptionInTheMiddle() throws {
        try Fixture.withDirectory { directory in
            let path = Fixture.segmentPath(directory, 0), size = Fixture.recordSize(Fixture.message(0))
            do { _ = try Spool(directory: directory, limitBytes: 1 << 20).append(Fixture.messages(0..<3)) }
            try Fixture.flipByte(at: size + 30, of: path)  // in record 1's topic
            #expect(throws: SpoolError.corrupt(path, at: size, "the record's checksum does not match")) {
                try Spool(directory: directory, limitBytes: 1 << 20)
            }
        }
    }

    @Test("given a segment other than the last cut short when reopened then corrupt names it and the offset")
    func earlierSegmentTorn() throws {
        try Fixture.withDirectory { directory in
            let path = Fixture.segmentPath(directory, 0), size = Fixture.recordSize(Fixture.message(0))
            do { _ = try Spool(directory: directory, limitBytes: 1 << 20, segmentBytes: 250).append(Fixture.messages(0..<6)) }
            Fixture.truncate(path, to: 3 * size + 5)
            #expect(throws: SpoolError.corrupt(path, at: 3 * size, "the file ends inside a record, and later segments follow")) {
                try Spool(directory: directory, limitBytes: 1 << 20, segmentBytes: 250)
            }
        }
    }

    @Test("given one slot of the head file spoiled when reopened then the other slot's head is used")
    func headSlotSpoiled() throws {
        try Fixture.withDirectory { directory in
            do {
                let spool = try Spool(directory: directory, limitBytes: 1 << 20)
                _ = try spool.append(Fixture.messages(0..<5))
                spool.acknowledge(0)
                try spool.flushAcknowledgements()  // slot 0: 1 (the creation wrote 0 to both)
                spool.acknowledge(1)
                try spool.flushAcknowledgements()  // slot 1: 2
            }
            try Fixture.flipByte(at: 20, of: directory + "/head")  // slot 1 torn
            #expect(try Spool(directory: directory, limitBytes: 1 << 20).firstUnacknowledged == 1)
        }
    }

    @Test("given pending segment files removed behind the spool's back when read then an older one's is an error naming it, and the last one still reads through its open file")
    func segmentFilesRemoved() throws {
        try Fixture.withDirectory { directory in
            let first = Fixture.segmentPath(directory, 0), last = Fixture.segmentPath(directory, 4)
            do { _ = try Spool(directory: directory, limitBytes: 1 << 20, segmentBytes: 250).append(Fixture.messages(0..<6)) }
            let spool = try Spool(directory: directory, limitBytes: 1 << 20, segmentBytes: 250)  // nothing in memory
            try FileManager.default.removeItem(atPath: first)
            try FileManager.default.removeItem(atPath: last)
            // Not below the durable head, so not deleted by the spool: damage, not a read to plan again.
            #expect(throws: SpoolError.io(first, "open", ENOENT)) { try spool.messages(from: 0, limit: 10) }
            #expect(try Fixture.pending(spool, from: 4) == [4: Fixture.message(4), 5: Fixture.message(5)])
        }
    }

    @Test("given a spool open when a second one opens the folder then inUse is thrown")
    func inUse() throws {
        try Fixture.withDirectory { directory in
            let first = try Spool(directory: directory, limitBytes: 1 << 20)
            #expect(throws: SpoolError(path: directory, kind: .inUse)) { try Spool(directory: directory, limitBytes: 1 << 20) }
            withExtendedLifetime(first) {}
        }
    }
}
