import LocTrack
import Synchronization
import LocTrackSystem

/// `--output`: hands each batch of ``RecordFrame``s to the track writer, a process of
/// loctrack's own (``TrackWriter``; why a process is said there), through a pipe.
///
/// The pipe is written by an ``OutputWriter``, so the consumer of fixes never waits on
/// the disk, with stdout's buffering policy: a writer stuck for over a second (a hung
/// disk) has the oldest whole batches dropped and counted on stderr. Beside other sinks
/// (`waitsForRoom` false) it never waits that second, so that a slow disk delays no
/// broker; its queue is then larger instead (``queuedBytesBesideOthers``). At the end
/// the pipe is closed and the writer's exit status becomes the command's.
///
/// A second pipe runs back: the writer's stdout, on which it reports after each sync how
/// many frames are on disk (``TrackWriter``). ``settledLines`` reads it, so that `monitor
/// run` confirms an event delivered only once its file survives a power cut.
final class RecordingSink: LineSink {
    private let writer: OutputWriter
    private let pipeDescriptor: Int32
    private let child: Int32
    private let waitsForRoom: Bool
    /// The read end of the writer's reports, non-blocking (closed with this sink), and
    /// the last count read.
    private let syncReports: FileDescriptor
    private let synced = Mutex(SyncReports())

    /// 4 MiB: about 10,000 JSON lines, 17 minutes of a 10 Hz receiver, held while the
    /// track writer's disk is slow before the oldest are dropped.
    static let queuedBytesBesideOthers = 4 << 20

    /// Starts the track writer.
    /// - Parameters:
    ///   - waitsForRoom: whether a full queue first makes the command wait up to a second.
    ///   - onClosed: called once when the writer goes away (its own error ends it).
    init(format: OutputFormat, options: RecordOptions, waitsForRoom: Bool = true,
         onClosed: @escaping @Sendable () -> Void) throws(Errno) {
        self.waitsForRoom = waitsForRoom
        // Close-on-exec: the writer gets its end as stdin only, never the write end (it
        // would then never see its stdin end).
        let ends = try makePipe()
        // Neither side ever waits: a report that does not fit is superseded by the next.
        let reports: (read: Int32, write: Int32)
        do throws(Errno) { reports = try makePipe(nonBlocking: true) } catch {
            closeDescriptor(ends.read)
            closeDescriptor(ends.write)
            throw error
        }
        let arguments = ["loctrack"] + RecordWriterOptions.arguments(format: format, options: options)
        do throws(Errno) {
            // SIGINT, SIGTERM and SIGHUP blocked: loctrack handles them and closes the pipe.
            child = try spawnThisExecutable(
                arguments, stdin: ends.read, stdout: reports.write, blocking: [.interrupt, .terminate, .hangUp])
        } catch {
            for end in [ends.read, ends.write, reports.read, reports.write] { closeDescriptor(end) }
            throw error
        }
        closeDescriptor(ends.read)
        closeDescriptor(reports.write)
        syncReports = FileDescriptor(owning: reports.read)
        pipeDescriptor = ends.write
        writer = OutputWriter(
            descriptor: ends.write,
            maximumQueuedBytes: waitsForRoom ? OutputWriter.defaultMaximumQueuedBytes : Self.queuedBytesBesideOthers,
            onClosed: onClosed)
    }

    func send(_ output: OutputBytes, lines: Int) async -> Bool {
        waitsForRoom ? await writer.enqueueAllowingHiccups(output, lines: lines) : writer.enqueue(output.bytes, lines: lines)
    }

    /// The writer frames each file itself (GPX's head and tail, CSV's header).
    func sendFraming(_ text: String) {}

    /// Frames the track writer has synced to disk (its last report).
    var settledLines: Int {
        synced.withLock { reports in
            reports.read(from: syncReports.rawValue)
            return reports.count
        }
    }

    func finish(promptly: Bool) async -> SinkOutcome {
        let written = await writer.finishWriting()
        closeDescriptor(pipeDescriptor)  // the writer's stdin ends: it writes what it has, syncs, exits
        switch waitForExit(of: child) {
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

    /// Reads whatever the pipe holds now (never waits) and keeps the newest whole count.
    mutating func read(from descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: 512)
        while true {
            let got = buffer.withUnsafeMutableBytes { bytes in
                systemRead(descriptor, bytes.baseAddress, bytes.count)
            }
            guard got > 0 else { return }
            partial += buffer[..<got]
            let whole = partial.count / 8 * 8
            if whole >= 8 {
                count = Int(partial[(whole - 8)..<whole].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
                partial.removeFirst(whole)
            }
        }
    }
}
