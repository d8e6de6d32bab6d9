import LocTrack
import LocTrackMonitor
import LocTrackSystem

/// Where a streaming command's lines go: stdout (``OutputWriter``), or an MQTT broker
/// (``PublishingSink``, one message per line).
protocol LineSink: Sendable {
    /// Takes a batch of `lines` complete lines, in order. Returns false once nothing more
    /// can go out (stdout closed, the broker refused the login): the command then ends.
    func send(_ output: OutputBytes, lines: Int) async -> Bool
    /// Text around the lines (a GPX document's head and tail, a CSV header).
    func sendFraming(_ text: String)
    /// How many of the lines taken have reached the sink's destination for good: stdout's
    /// reader, a broker's spool (on disk, synced), the track writer. What `monitor run`
    /// confirms delivered (``GeofenceMonitor/confirmDelivery(through:)``).
    var settledLines: Int { get }
    /// Waits until everything taken is out (or as far as it can go), then says how it ended.
    /// - Parameter promptly: a signal is ending the command: wait only briefly for what
    ///   is slow to go out (a broker's acknowledgements), keeping it for the next start.
    func finish(promptly: Bool) async -> SinkOutcome
}

/// How a ``LineSink`` ended.
enum SinkOutcome: Equatable {
    /// Everything went out, or the reader went away (a closed pipe is a normal end).
    case done
    /// The command must exit with `code`, after printing `message` on stderr.
    case failed(ExitCode, message: String)
}

extension OutputWriter: LineSink {
    func send(_ output: OutputBytes, lines: Int) async -> Bool {
        await enqueueAllowingHiccups(output, lines: lines)
    }

    func sendFraming(_ text: String) {
        enqueue(text)
    }

    func finish(promptly: Bool) async -> SinkOutcome {
        switch await finishWriting() {
        case .written, .closed: .done
        case .failed(let code): .failed(.outputFailed, message: "cannot write output: \(Errno(code: code))")
        }
    }
}
