import LocTrackSystem
package import LocTrackProcess

/// The track writer: `loctrack __record-writer`, a process of loctrack's own that reads
/// ``RecordFrame``s on stdin and writes them into the track files, until stdin ends.
///
/// Why a process and not a thread: Linux can stop a `write` to a file at a page boundary
/// when its process is killed (a SIGKILL between two pages of one `write` leaves a line
/// cut short; docs/recording.md, "Valid after every fix"). loctrack's SIGKILL
/// does not reach this process: it finishes the frame it holds, sees stdin end, syncs and
/// exits, and every file is whole. It ignores SIGINT and SIGTERM (loctrack handles them
/// and then closes the pipe), so a Ctrl-C at a terminal loses nothing either.
///
/// What to write where and when to sync is ``TrackWriterStateMachine``'s to decide; this
/// type only does it, with ``TrackFile``s and stdin (``StdinRecordFrames``).
package struct TrackWriter {
    package let options: RecordWriterOptions

    package init(options: RecordWriterOptions) {
        self.options = options
    }

    package func run() -> ExitCode {
        let files = DiskTrackFiles(layout: TrackFileLayout(format: options.format)) { printError($0) }
        var input = StdinRecordFrames()
        var machine = TrackWriterStateMachine(names: TrackFileNames(pattern: options.path),
                                              syncSeconds: options.syncSeconds, now: input.now)
        return Self.drive(&machine, files: files, input: &input, onError: { printError($0.description) }, onSynced: Self.reportSynced)
    }

    /// Tells loctrack, on stdout (a pipe of its own; ``TrackFileSink``), how many frames are
    /// synced to disk: 8 bytes, little-endian, each count replacing the last. Never waits:
    /// the pipe is non-blocking, and a count that does not fit is superseded by the next.
    private static func reportSynced(_ frames: Int) {
        var count = UInt64(frames).littleEndian
        // Would block (the pipe is full) or loctrack is gone (EPIPE): either way no one
        // waits for this count, and the next one supersedes it.
        _ = withUnsafeBytes(of: &count) { try? systemWrite(StandardDescriptor.output, $0.baseAddress, $0.count) }
    }

    /// Does what `machine` decides, with `files` and `input`, until it exits.
    /// - Parameters:
    ///   - onError: told why a file operation failed, before the exit.
    ///   - onSynced: told after each sync how many frames, all told, are on disk.
    package static func drive<Files: TrackFileStore, Input: RecordFrameSource>(
        _ machine: inout TrackWriterStateMachine, files: Files, input: inout Input,
        onError: (TrackFileError) -> Void, onSynced: (Int) -> Void = { _ in }
    ) -> ExitCode {
        var current: Files.File?
        // Frames appended so far: all of them are in the file a sync syncs, or in ones
        // synced and closed before it (a rotation syncs first).
        var appended = 0
        var action = machine.start
        while true {
            do throws(TrackFileError) {
                switch action {
                case .wait(let deadline):
                    switch input.next(until: deadline) {
                    case .frames(let frames): action = machine.framesRead(frames, now: input.now)
                    case .ended: action = machine.inputEnded()
                    case .deadlinePassed: action = machine.deadlinePassed(now: input.now)
                    }
                case .open(let name):
                    current = try files.open(name)
                    action = machine.fileOpened(now: input.now)
                case .rotate(let name):
                    try current?.sync()
                    onSynced(appended)
                    current = nil  // closed (and unlocked) before the next one opens
                    current = try files.open(name)
                    action = machine.fileOpened(now: input.now)
                case .append(let records):
                    try open(current).append(records)
                    appended += records.count
                    action = machine.completed(now: input.now)
                case .sync:
                    try open(current).sync()
                    onSynced(appended)
                    action = machine.completed(now: input.now)
                case .close:
                    current = nil
                    action = machine.completed(now: input.now)
                case .exit(let code):
                    return code
                }
            } catch {
                onError(error)
                action = machine.failed(error)
            }
        }
    }

    /// The machine asks for a file operation only while a file is open.
    private static func open<File>(_ file: File?) -> File {
        guard let file else { preconditionFailure("the track writer's state machine used a file it had not opened") }
        return file
    }
}
