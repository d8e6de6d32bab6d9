import Foundation
import Glibc
import Synchronization

/// Reads a pipe to its end on a thread of its own and keeps what it read.
package final class PipeCollector: Sendable {
    private struct State {
        var bytes: [UInt8] = []
        var lineCount = 0
        var ended = false
    }

    private let state = Mutex(State())

    /// - Parameter closeAfterLines: close the read end once this many lines have
    ///   arrived (what `head -n` does), keeping only those lines.
    package init(fd: Int32, closeAfterLines: Int?) {
        let thread = Thread { [self] in drain(fd, closeAfterLines: closeAfterLines) }
        thread.name = "PipeCollector fd \(fd)"
        thread.start()
    }

    package var text: String { state.withLock { String(decoding: $0.bytes, as: UTF8.self) } }
    package var lineCount: Int { state.withLock { $0.lineCount } }
    package var lines: [String] { text.completeLines }
    package var ended: Bool { state.withLock { $0.ended } }

    package func waitForEnd(timeout: Duration) async {
        try? await waitUntil(timeout: timeout, "pipe end") { ended }
    }

    private func drain(_ fd: Int32, closeAfterLines: Int?) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        readLoop: while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            let done = state.withLock { state -> Bool in
                for byte in buffer[0..<count] {
                    state.bytes.append(byte)
                    if byte == UInt8(ascii: "\n") {
                        state.lineCount += 1
                        if let closeAfterLines, state.lineCount >= closeAfterLines { return true }
                    }
                }
                return false
            }
            if done { break readLoop }
        }
        close(fd)
        state.withLock { $0.ended = true }
    }
}
