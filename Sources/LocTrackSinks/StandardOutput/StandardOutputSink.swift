import LocTrack
import LocTrackFormats
import LocTrackProcess
import LocTrackSystem
import Synchronization

/// stdout: each batch's records as one chunk for the ``OutputWriter`` (one `write` when
/// stdout can take it at once), in the sink's own format.
package final class StandardOutputSink: Sink {
    private let writer: OutputWriter
    /// The format; the fan-out calls one sink at a time, so this lock is never contended.
    private let encoder: Mutex<any SinkEncoder>

    /// - Parameter onClosed: called once when stdout's reader goes away or a write fails.
    package init(
        encoder: sending any SinkEncoder, descriptor: Int32 = StandardDescriptor.output,
        onClosed: @escaping @Sendable () -> Void
    ) {
        var encoder = encoder
        let begin = encoder.begin()
        self.encoder = Mutex(encoder)
        writer = OutputWriter(descriptor: descriptor, onClosed: onClosed)
        if !begin.isEmpty { writer.enqueue(begin) }
    }

    package func take(_ batch: SinkBatch) -> Bool {
        let (bytes, records) = encode(batch)
        return writer.enqueue(bytes, lines: records, events: batch.eventCount)
    }

    package func takeWaitingForRoom(_ batch: SinkBatch) async -> Bool {
        let (bytes, records) = encode(batch)
        return await writer.enqueueWaitingForRoom(bytes, lines: records, events: batch.eventCount)
    }

    private func encode(_ batch: SinkBatch) -> ([UInt8], Int) {
        encoder.withLock { encoder in
            var output = OutputBytes()
            let records = encoder.encode(batch, into: &output)
            return (output.bytes, records)
        }
    }

    package var settledEvents: Int { writer.settledEvents }

    package func finish(promptly: Bool) async -> SinkOutcome {
        let end = encoder.withLock { $0.end() }
        if !end.isEmpty { writer.enqueue(end) }
        switch await writer.finishWriting() {
        case .written, .closed: return .done
        case .failed(let code): return .failed(.outputFailed, message: "cannot write output: \(Errno(code: code))")
        }
    }
}
