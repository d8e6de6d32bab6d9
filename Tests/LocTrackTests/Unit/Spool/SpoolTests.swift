import Dispatch
import Foundation
@testable import LocTrackMQTT
@testable import LocTrackSpool
import LocTrackTestSupport
import Synchronization
import Testing

@Suite("Spool: appending, reading, acknowledging, the limit", .timeLimit(.minutes(1)))
struct SpoolTests {
    typealias Fixture = SpoolFixture

    @Test("given messages when appended then they read back in order with topic, payload, QoS and retain exact")
    func appendThenRead() throws {
        try Fixture.withDirectory { directory in
            let spool = try Spool(directory: directory, limitBytes: 1 << 20)
            let given = [
                SpoolMessage(topic: "owntracks/ana/phone", payload: Array(#"{"_type":"location","lat":52.52}"#.utf8), qos: 1, retain: true),
                SpoolMessage(topic: "loctrack/straße/ü", payload: [], qos: 0, retain: false),
                SpoolMessage(topic: "", payload: [0, 255, 10, 13], qos: 2, retain: false),
            ]
            let result = try spool.append(given)
            #expect(result == SpoolAppendResult(firstSequence: 0, count: 3, droppedOldest: 0))
            let read = try spool.messages(from: 0, limit: 10)
            #expect(read.map(\.sequence) == [0, 1, 2])
            #expect(read.map(\.message) == given)
            #expect(try spool.messages(from: 1, limit: 1).map(\.message) == [given[1]])
            #expect(spool.pendingCount == 3)
            #expect(spool.pendingBytes == given.map(Fixture.recordSize).reduce(0, +))
            #expect(spool.nextSequence == 3)
            #expect(try spool.append(Fixture.messages(0..<2)).firstSequence == 3)
        }
    }

    @Test("given a QoS of 3 when appended then invalidMessage is thrown and nothing is stored")
    func invalidMessage() throws {
        try Fixture.withDirectory { directory in
            let spool = try Spool(directory: directory, limitBytes: 1 << 20)
            let bad = SpoolMessage(topic: "t", payload: [1], qos: 3, retain: false)
            #expect(throws: SpoolError(path: directory, kind: .invalidMessage(reason: "QoS 3 (MQTT has 0, 1 and 2)"))) {
                try spool.append([Fixture.message(0), bad])
            }
            #expect(spool.nextSequence == 0)
            #expect(spool.pendingCount == 0)
        }
    }

    @Test("given acknowledgements out of order when applied then the head moves over the contiguous prefix only")
    func outOfOrderAcknowledgements() throws {
        try Fixture.withDirectory { directory in
            let spool = try Spool(directory: directory, limitBytes: 1 << 20)
            _ = try spool.append(Fixture.messages(0..<6))
            spool.acknowledge(2)
            spool.acknowledge(1)
            #expect(spool.firstUnacknowledged == 0)
            #expect(spool.pendingCount == 4)
            #expect(try Fixture.sequences(spool) == [0, 3, 4, 5])
            #expect(try Fixture.sequences(spool, limit: 2) == [0, 3])
            spool.acknowledge(0)
            #expect(spool.firstUnacknowledged == 3)
            #expect(try Fixture.sequences(spool) == [3, 4, 5])
            spool.acknowledge(0)  // again, and one never appended: ignored
            spool.acknowledge(99)
            #expect(spool.firstUnacknowledged == 3)
            #expect(spool.pendingCount == 3)
            #expect(spool.pendingBytes == Fixture.messages(3..<6).map(Fixture.recordSize).reduce(0, +))
        }
    }

    @Test("given a limit of ten records when 25 are appended then the oldest are dropped, counted exactly, and a reopen agrees")
    func limitDropsOldest() throws {
        try Fixture.withDirectory { directory in
            let size = Fixture.recordSize(Fixture.message(0))  // all the same size: topics phone0...2
            do {
                let spool = try Spool(directory: directory, limitBytes: 10 * size)
                #expect(try spool.append(Fixture.messages(0..<8)).droppedOldest == 0)
                spool.acknowledge(0)
                spool.acknowledge(2)  // out of order: dropping it is no loss
                #expect(try spool.append(Fixture.messages(8..<12)) == SpoolAppendResult(firstSequence: 8, count: 4, droppedOldest: 1))
                #expect(spool.firstUnacknowledged == 3)  // 0 acknowledged, 1 dropped, 2 acknowledged
                #expect(try spool.append(Fixture.messages(12..<25)).droppedOldest == 12)
                #expect(spool.firstUnacknowledged == 15)
                #expect(spool.pendingBytes == 10 * size)
                #expect(try Fixture.sequences(spool) == Array(15..<25))
            }
            let reopened = try Spool(directory: directory, limitBytes: 10 * size)
            #expect(reopened.firstUnacknowledged == 15)
            #expect(reopened.pendingCount == 10)
            #expect(try Fixture.pending(reopened)[24] == Fixture.message(24))
        }
    }

    @Test("given a limit below one message when two large ones are appended then only the newest is kept")
    func oversizedMessageKept() throws {
        try Fixture.withDirectory { directory in
            let spool = try Spool(directory: directory, limitBytes: 100)
            let result = try spool.append(Fixture.messages(0..<2, payloadBytes: 500))
            #expect(result.droppedOldest == 1)
            #expect(try Fixture.pending(spool) == [1: Fixture.message(1, payloadBytes: 500)])
            #expect(spool.pendingBytes > spool.limitBytes)
        }
    }

    @Test("given a backlog of 100,000 messages when paged 100 at a time then all come back once, in order")
    func largeBacklog() throws {
        try Fixture.withDirectory { directory in
            let spool = try Spool(directory: directory, limitBytes: 1 << 30)
            let payload = { (index: Int) in withUnsafeBytes(of: UInt32(index).littleEndian, Array.init) }
            for batch in 0..<100 {
                _ = try spool.append((0..<1000).map { SpoolMessage(topic: "t", payload: payload(batch * 1000 + $0), qos: 1, retain: false) })
            }
            #expect(try Fixture.segmentFiles(directory).count == 2)  // 17 bytes each: 1.7 MB
            var next: UInt64 = 0, count = 0
            while true {
                let page = try spool.messages(from: next, limit: 100)
                guard let last = page.last else { break }
                #expect(page.count == 100)
                for (offset, entry) in page.enumerated() where entry.sequence != next + UInt64(offset) || entry.message.payload != payload(count + offset) {
                    Issue.record("sequence \(entry.sequence) at \(next + UInt64(offset))")
                }
                count += page.count
                next = last.sequence + 1
            }
            #expect(count == 100_000)
        }
    }

    /// Shared between the test's threads.
    final class Received: Sendable {
        let sequences = Mutex<[UInt64]>([])
        let failures = Mutex<[String]>([])
    }

    @Test("given a producer thread and a publisher thread when both run then every message arrives once, in order")
    func concurrentAppendAndAcknowledge() async throws {
        let root = FileManager.default.temporaryDirectory.path + "/loctrack-spool-concurrent-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let spool = try Spool(directory: root, limitBytes: 1 << 30)
        let total = 1000, received = Received(), group = DispatchGroup()
        group.enter()
        Thread {
            defer { group.leave() }
            for start in stride(from: 0, to: total, by: 10) {
                do { _ = try spool.append(SpoolFixture.messages(start..<(start + 10))) } catch {
                    received.failures.withLock { $0.append("append: \(error)") }
                    return
                }
            }
        }.start()
        group.enter()
        Thread {
            defer { group.leave() }
            var next: UInt64 = 0
            let deadline = Date().addingTimeInterval(10)
            while next < UInt64(total), Date() < deadline {
                do {
                    let page = try spool.messages(from: next, limit: 64)
                    for entry in page where entry.message != SpoolFixture.message(Int(entry.sequence)) {
                        received.failures.withLock { $0.append("wrong message at \(entry.sequence)") }
                    }
                    received.sequences.withLock { $0.append(contentsOf: page.map(\.sequence)) }
                    for entry in page.reversed() { spool.acknowledge(entry.sequence) }  // out of order
                    try spool.flushAcknowledgements()
                    next = page.last.map { $0.sequence + 1 } ?? next
                } catch {
                    received.failures.withLock { $0.append("publish: \(error)") }
                    return
                }
            }
        }.start()
        try await group.wait(within: .seconds(30), "the producer and publisher threads")
        #expect(received.failures.withLock { $0 } == [])
        #expect(received.sequences.withLock { $0 } == Array(0..<UInt64(total)))
        #expect(spool.pendingCount == 0)
        #expect(spool.firstUnacknowledged == UInt64(total))
    }

    @Test("given a publisher falling ever further behind a producer over the limit when it reads then no read fails on a segment dropped meanwhile, each message is its sequence's, and drops plus pending make the total")
    func concurrentDropWhileReading() async throws {
        let root = FileManager.default.temporaryDirectory.path + "/loctrack-spool-dropping-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let size = Fixture.recordSize(Fixture.message(0))
        // Segments of 50 records and a limit of 5,000, above the ~4,000 kept in memory: once
        // the publisher is that far behind, it reads at the head from segment files, the
        // very ones the producer's drops delete.
        let spool = try Spool(directory: root, limitBytes: 5000 * size, segmentBytes: 50 * size)
        let total = 16000, batch = 40, received = Received(), group = DispatchGroup()
        let dropped = Atomic<Int>(0), producing = Atomic<Bool>(true)
        // One page read per batch appended (4 of 40 messages): the publisher falls behind
        // by the same count whatever the machine's speed.
        let appended = DispatchSemaphore(value: 0)
        group.enter()
        Thread {
            defer { group.leave() }
            defer {
                producing.store(false, ordering: .sequentiallyConsistent)
                appended.signal()
            }
            for start in stride(from: 0, to: total, by: batch) {
                do {
                    let result = try spool.append(Fixture.messages(start..<(start + batch)))
                    dropped.add(result.droppedOldest, ordering: .relaxed)
                    appended.signal()
                } catch {
                    received.failures.withLock { $0.append("append: \(error)") }
                    return
                }
            }
        }.start()
        group.enter()
        Thread {
            defer { group.leave() }
            var next: UInt64 = 0
            while true {
                let done = !producing.load(ordering: .sequentiallyConsistent)
                do {
                    let page = try spool.messages(from: next, limit: 4)
                    for entry in page where entry.message != Fixture.message(Int(entry.sequence)) || entry.sequence < next {
                        received.failures.withLock { $0.append("wrong message at \(entry.sequence), reading from \(next)") }
                    }
                    received.sequences.withLock { $0.append(contentsOf: page.map(\.sequence)) }
                    if let last = page.last { next = last.sequence + 1 } else if done { return }
                } catch {
                    received.failures.withLock { $0.append("read: \(error)") }
                    return
                }
                if !done { appended.wait() }
            }
        }.start()
        try await group.wait(within: .seconds(50), "the producer and publisher threads")
        #expect(received.failures.withLock { $0 } == [])
        let sequences = received.sequences.withLock { $0 }
        #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $0 < $1 })
        #expect(sequences.last == UInt64(total - 1))
        #expect(sequences.count < total)  // it did fall behind the limit
        #expect(dropped.load(ordering: .relaxed) + spool.pendingCount == total)
        #expect(spool.pendingBytes <= spool.limitBytes)
        #expect(try Fixture.sequences(spool, limit: 6000) == Array(spool.firstUnacknowledged..<UInt64(total)))
    }
}
