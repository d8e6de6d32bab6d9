import LocTrack
import Synchronization
package import LocTrackSystem
package import LocTrackFormats
import LocTrackProcess

/// `--output`: hands each batch of ``RecordFrame``s to the track writer, a process of
/// loctrack's own (``TrackWriter``; why a process is said there), through a pipe.
///
/// The pipe is written by an ``OutputWriter``, so the consumer of fixes never waits on
/// the disk, with stdout's buffering policy: a writer stuck for over a second (a hung
/// disk) has the oldest whole batches dropped and counted on stderr. Beside other sinks
/// the fan-out never lets it wait that second (``Sink/take(_:)``), so that a slow disk
/// delays no broker; its queue is then larger instead (``queuedBytesBesideOthers``). At the end
/// the pipe is closed and the writer's exit status becomes the command's.
///
/// A second pipe runs back: the writer's stdout, on which it reports after each sync how
/// many frames are on disk (``TrackWriter``). ``settledEvents`` reads it, so that `monitor
/// run` confirms an event delivered only once its file survives a power cut.
package final class TrackFileSink: Sink {
    /// Owns the pipe's write end, the writer's stdin: closed once everything is written.
    private let writer: OutputWriter
    private let child: Int32
    /// The read end of the writer's reports, non-blocking (closed with this sink).
    private let syncReports: FileDescriptor
    /// The encoder, and which events the frames given so far settle once synced. The
    /// fan-out calls one sink at a time, so this lock is never contended.
    private let state: Mutex<State>

    private struct State {
        var encoder: any SinkEncoder
        var reports = SyncReports()
        var framesGiven = 0
        var eventsGiven = 0
        /// Per batch not yet settled: the frames it took the count to, and the events.
        var unsettled: [(framesThrough: Int, eventsThrough: Int)] = []
        var settledEvents = 0
        /// The most marks kept (an even number, so that halving keeps the newest).
        static let unsettledLimit = 256

        mutating func encode(_ batch: SinkBatch) -> ([UInt8], Int) {
            var output = OutputBytes()
            let records = encoder.encode(batch, into: &output)
            framesGiven += records
            eventsGiven += batch.eventCount
            // Nobody may ask for a long time (`stream` never does): keep at most a few
            // hundred marks by dropping every other one. An event then settles with a later
            // batch's frames: later, never earlier, so the confirmation stays at least once.
            if unsettled.count >= Self.unsettledLimit {
                unsettled = stride(from: 1, to: unsettled.count, by: 2).map { unsettled[$0] }
            }
            unsettled.append((framesGiven, eventsGiven))
            return (output.bytes, records)
        }

        /// Settles every batch whose frames are all synced.
        mutating func settle(syncedFrames: Int) -> Int {
            var settled = 0
            while settled < unsettled.count, unsettled[settled].framesThrough <= syncedFrames { settled += 1 }
            if settled > 0 {
                settledEvents = unsettled[settled - 1].eventsThrough
                unsettled.removeFirst(settled)
            }
            return settledEvents
        }
    }

    /// 4 MiB: about 10,000 JSON lines, 17 minutes of a 10 Hz receiver, held while the
    /// track writer's disk is slow before the oldest are dropped.
    package static let queuedBytesBesideOthers = 4 << 20

    /// Starts the track writer.
    /// - Parameters:
    ///   - encoder: the frames (``FixRecordEncoder`` over a ``RecordFrameEncoder``, or a
    ///     framed ``MonitorEventEncoder``).
    ///   - format: the files' format, which the writer frames the files in.
    ///   - alone: no other sink: a full queue may make the command wait up to a second
    ///     (256 KiB); beside others it never waits, and holds ``queuedBytesBesideOthers``.
    ///   - onClosed: called once when the writer goes away (its own error ends it).
    package init(encoder: sending any SinkEncoder, format: OutputFormat, options: RecordOptions, alone: Bool,
                 onClosed: @escaping @Sendable () -> Void) throws(Errno) {
        state = Mutex(State(encoder: encoder))
        // Close-on-exec: the writer gets its end as stdin only, never the write end (it
        // would then never see its stdin end).
        // Every end closes itself: on a failure here, and the child's ends (its stdin's
        // read end, its stdout's write end) when this initialiser returns.
        let ends = try makePipe()
        // Neither side ever waits: a report that does not fit is superseded by the next.
        let reports = try makePipe(nonBlocking: true)
        let arguments = ["loctrack"] + RecordWriterOptions.arguments(format: format, options: options)
        // SIGINT, SIGTERM and SIGHUP blocked: loctrack handles them and closes the pipe.
        child = try spawnThisExecutable(
            arguments, stdin: ends.read.rawValue, stdout: reports.write.rawValue, blocking: [.interrupt, .terminate, .hangUp])
        syncReports = reports.read
        writer = OutputWriter(
            owning: ends.write,
            maximumQueuedBytes: alone ? OutputWriter.defaultMaximumQueuedBytes : Self.queuedBytesBesideOthers,
            onClosed: onClosed)
    }

    package func take(_ batch: SinkBatch) -> Bool {
        let (bytes, frames) = state.withLock { $0.encode(batch) }
        return writer.enqueue(bytes, lines: frames, events: batch.eventCount)
    }

    package func takeWaitingForRoom(_ batch: SinkBatch) async -> Bool {
        let (bytes, frames) = state.withLock { $0.encode(batch) }
        return await writer.enqueueWaitingForRoom(bytes, lines: frames, events: batch.eventCount)
    }

    /// The events whose frames the track writer has synced to disk (its last report).
    /// The pipe is read before the lock is taken: no system call under it.
    package var settledEvents: Int {
        let reported = SyncReports.readAvailable(from: syncReports.rawValue)
        return state.withLock { state in
            state.reports.take(reported)
            return state.settle(syncedFrames: state.reports.count)
        }
    }

    package func finish(promptly: Bool) async -> SinkOutcome {
        // Closes the pipe too: the writer's stdin ends, and it writes what it has, syncs, exits.
        let written = await writer.finishWriting()
        let exit: ExitStatus
        do throws(Errno) {
            exit = try waitForExit(of: child)
        } catch {
            return .failed(.outputFailed, message: "cannot learn how the track writer ended: \(error)")
        }
        switch exit {
        case .exited(let code) where code != 0:
            // The writer said why on stderr itself.
            return .failed(ExitCode(rawValue: code) ?? .outputFailed, message: "")
        case .signaled(let signal):
            return .failed(.outputFailed, message: "the track writer was ended by signal \(signal); its files hold what it wrote")
        case .exited:
            break
        }
        if case .failed(let code) = written {
            return .failed(.outputFailed, message: "cannot hand fixes to the track writer: \(Errno(code: code))")
        }
        return .done
    }
}

/// The track writer's sync reports as read so far: 8-byte little-endian counts.
private struct SyncReports {
    var count = 0
    private var partial: [UInt8] = []

    /// Whatever the pipe holds now (never waits).
    static func readAvailable(from descriptor: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while true {
            // Would block: nothing more for now. Any other failure of the writer's end is
            // the writer's exit, which finish(promptly:) reports.
            guard let got = try? systemRead(descriptor, into: &buffer), got > 0 else { return bytes }
            bytes += buffer[..<got]
        }
    }

    /// Keeps the newest whole count of what was read.
    mutating func take(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        partial += bytes
        let whole = partial.count / 8 * 8
        if whole >= 8 {
            count = Int(partial[(whole - 8)..<whole].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            partial.removeFirst(whole)
        }
    }
}
