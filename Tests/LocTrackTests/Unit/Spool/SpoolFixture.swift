import Foundation
import Glibc
@testable import LocTrackMQTT
@testable import LocTrackSpool

/// Temporary spool folders and messages for the spool's tests.
enum SpoolFixture {
    /// Runs `body` with a fresh folder path under /tmp (not yet created: the spool makes
    /// it), removing the parent folder afterwards.
    static func withDirectory(_ body: (String) throws -> Void) throws {
        var template = Array("/tmp/loctrack-spool-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard let made else { throw SpoolError.io("/tmp", "mkdtemp", errno) }
        let root = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try body(root + "/spool")
    }

    /// Message `index`: a topic and payload that name it, QoS and retain varying with it.
    static func message(_ index: Int, payloadBytes: Int = 20) -> SpoolMessage {
        let text = Array("fix \(index) ".utf8)
        let payload = (0..<payloadBytes).map { text[$0 % text.count] }
        return SpoolMessage(topic: "owntracks/ana/phone\(index % 3)", payload: payload, qos: UInt8(index % 3), retain: index % 2 == 0)
    }

    static func messages(_ range: Range<Int>, payloadBytes: Int = 20) -> [SpoolMessage] {
        range.map { message($0, payloadBytes: payloadBytes) }
    }

    /// The bytes a message's record takes on disk.
    static func recordSize(_ message: SpoolMessage) -> Int64 {
        Int64(8 + 4 + message.topic.utf8.count + message.payload.count)
    }

    /// The segment files in `directory`, sorted.
    static func segmentFiles(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".seg") }.sorted()
    }

    static func segmentPath(_ directory: String, _ firstSequence: UInt64) -> String {
        directory + "/" + SpoolSegment.fileName(firstSequence)
    }

    static func fileSize(_ path: String) throws -> Int64 {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? -1
    }

    static func truncate(_ path: String, to size: Int64) {
        _ = Glibc.truncate(path, off_t(size))
    }

    static func append(_ bytes: [UInt8], to path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(bytes))
    }

    /// Flips every bit of the byte at `offset` of the file at `path`.
    static func flipByte(at offset: Int64, of path: String) throws {
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[Int(offset)] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Sequences and messages of what the spool would send from `sequence`, up to `limit`.
    static func pending(_ spool: Spool, from sequence: UInt64 = 0, limit: Int = 1000) throws -> [UInt64: SpoolMessage] {
        Dictionary(uniqueKeysWithValues: try spool.messages(from: sequence, limit: limit).map { ($0.sequence, $0.message) })
    }

    static func sequences(_ spool: Spool, from sequence: UInt64 = 0, limit: Int = 1000) throws -> [UInt64] {
        try spool.messages(from: sequence, limit: limit).map(\.sequence)
    }
}
