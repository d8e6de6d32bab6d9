import Glibc
import LocTrack
@testable import LocTrackCLI
import LocTrackSystem
import LocTrackTestSupport
import Synchronization
import Testing
@testable import LocTrackFormats
@testable import LocTrackSinks

/// The output writer's buffering policy, on a real pipe whose reader the test controls.
@Suite("Output writer", .timeLimit(.minutes(1)))
struct OutputWriterTests {
    /// A pipe with a non-blocking read end; the write end is what loctrack writes to.
    final class Pipe: Sendable {
        let read: Int32
        let write: Int32

        init() {
            // Close-on-exec: a child another suite spawns meanwhile (a mosquitto) would
            // otherwise hold the read end, and a writer the test leaves blocked on a full
            // pipe would never get EPIPE when the test closes its ends (a run hung so).
            let ends = try! makeRawPipe()
            _ = fcntl(ends.read, F_SETFL, fcntl(ends.read, F_GETFL) | O_NONBLOCK)
            (read, write) = (ends.read, ends.write)
        }

        deinit {
            close(read)
            close(write)
        }

        /// Fills the pipe until a write would block (the write end is made non-blocking for that, then blocking again).
        func fill() {
            let flags = fcntl(write, F_GETFL)
            _ = fcntl(write, F_SETFL, flags | O_NONBLOCK)
            let block = [UInt8](repeating: 0x2E, count: 4096)
            while block.withUnsafeBytes({ Glibc.write(write, $0.baseAddress, $0.count) }) > 0 {}
            _ = fcntl(write, F_SETFL, flags)
        }

        /// Everything waiting in the pipe.
        func drain() -> [UInt8] {
            var all: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(read, $0.baseAddress, $0.count) }
                if count <= 0 { return all }
                all += buffer[0..<count]
            }
        }
    }

    static func chunk(_ letter: Character, _ count: Int) -> OutputBytes {
        var bytes = OutputBytes()
        bytes.append(String(repeating: letter, count: count - 1) + "\n")
        return bytes
    }

    @Test("given a stdout that blocks for 0.2 s when batches arrive beyond the allowance then they wait for room and none is dropped")
    func batchesWaitForRoomInsteadOfDroppingOlderOutput() async throws {
        let pipe = Pipe()
        pipe.fill()
        let writer = OutputWriter(descriptor: pipe.write, maximumQueuedBytes: 100) {}
        // A goes to the writer thread, which blocks writing it; B waits in the queue;
        // C (60 + 60 > 100) must wait for room, not push B out.
        #expect(await writer.enqueueWaitingForRoom(Self.chunk("A", 60).bytes, lines: 1, events: 1))
        try await Task.sleep(for: .milliseconds(50))
        #expect(await writer.enqueueWaitingForRoom(Self.chunk("B", 60).bytes, lines: 1, events: 1))
        let reader = Task {
            try await Task.sleep(for: .milliseconds(200))
            var received: [UInt8] = []
            let deadline = ContinuousClock.now + .seconds(10)
            while !received.contains(UInt8(ascii: "D")) {
                guard ContinuousClock.now < deadline else {
                    throw HarnessError("no D within 10 s; got \(String(decoding: received.filter { $0 != 0x2E }, as: UTF8.self))")
                }
                received += pipe.drain()
                try await Task.sleep(for: .milliseconds(5))
            }
            return received
        }
        #expect(await writer.enqueueWaitingForRoom(Self.chunk("C", 60).bytes, lines: 1, events: 1))
        #expect(await writer.enqueueWaitingForRoom(Self.chunk("D", 60).bytes, lines: 1, events: 1))
        #expect(await writer.finishWriting() == .written)
        let received = try await reader.value(within: .seconds(15), "the reader") + pipe.drain()
        let text = String(decoding: received.filter { $0 != 0x2E }, as: UTF8.self)
        #expect(text == ["A", "B", "C", "D"].map { String(repeating: $0, count: 59) + "\n" }.joined())
    }
}
