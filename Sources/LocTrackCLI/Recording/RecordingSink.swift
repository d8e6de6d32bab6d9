import Glibc
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
    private let child: pid_t
    private let waitsForRoom: Bool
    /// The read end of the writer's reports, non-blocking, and the last count read.
    private let syncReports: Int32
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
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw .current }
        // Close-on-exec: the writer gets its end as stdin only, never the write end (it
        // would then never see its stdin end).
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var reports: [Int32] = [-1, -1]
        guard pipe(&reports) == 0 else {
            close(ends[0])
            close(ends[1])
            throw .current
        }
        for end in reports {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            // Neither side ever waits: a report that does not fit is superseded by the next.
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        let arguments = ["loctrack"] + RecordWriterOptions.arguments(format: format, options: options)
        do throws(Errno) {
            child = try Self.spawn(arguments, stdin: ends[0], stdout: reports[1])
        } catch {
            for end in ends + reports { close(end) }
            throw error
        }
        close(ends[0])
        close(reports[1])
        syncReports = reports[0]
        pipeDescriptor = ends[1]
        writer = OutputWriter(
            descriptor: ends[1],
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
            reports.read(from: syncReports)
            return reports.count
        }
    }

    deinit {
        close(syncReports)
    }

    func finish(promptly: Bool) async -> SinkOutcome {
        let written = await writer.finishWriting()
        close(pipeDescriptor)  // the writer's stdin ends: it writes what it has, syncs, exits
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0, errno == EINTR {}
        let exited = status & 0x7F == 0, code = (status >> 8) & 0xFF, signal = status & 0x7F
        if exited, code != 0 {
            // The writer said why on stderr itself.
            return .failed(ExitCode(rawValue: code) ?? .outputFailed, message: "")
        }
        if !exited {
            return .failed(.outputFailed, message: "the track writer was ended by signal \(signal); its files hold what it wrote")
        }
        if case .failed(let code) = written {
            return .failed(.outputFailed, message: "cannot hand fixes to the track writer: \(Errno(code: code))")
        }
        return .done
    }

    /// Starts this executable again with `arguments`, `stdin` and `stdout` as its standard
    /// input and output, and SIGINT, SIGTERM and SIGHUP blocked (loctrack handles them and
    /// closes the pipe).
    private static func spawn(_ arguments: [String], stdin: Int32, stdout: Int32) throws(Errno) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, stdout, STDOUT_FILENO)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var blocked = sigset_t()
        sigemptyset(&blocked)
        for signal in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&blocked, signal) }
        posix_spawnattr_setsigmask(&attributes, &blocked)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, "/proc/self/exe", &actions, &attributes, argv, environ)
        guard result == 0 else { throw Errno(code: result) }
        return child
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
                retryingInterrupts { Glibc.read(descriptor, bytes.baseAddress, bytes.count) }
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
