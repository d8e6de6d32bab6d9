import Glibc
import LocTrack

/// The track writer: `loctrack __record-writer`, a process of loctrack's own that reads
/// ``RecordFrame``s on stdin and writes them into the track files, until stdin ends.
///
/// Why a process and not a thread: Linux can stop a `write` to a file at a page boundary
/// when its process is killed (a SIGKILL between two pages of one `write`; measured: 44 %
/// of the kills of a writer of 8 KiB batches left a line cut short). loctrack's SIGKILL
/// does not reach this process: it finishes the frame it holds, sees stdin end, syncs and
/// exits, and every file is whole. It ignores SIGINT and SIGTERM (loctrack handles them
/// and then closes the pipe), so a Ctrl-C at a terminal loses nothing either.
struct TrackWriter {
    let options: RecordWriterOptions

    func run() -> ExitCode {
        let layout = TrackFileLayout(format: options.format)
        var current: TrackFile?
        var currentName: String?
        var nameCache: (seconds: Int64, name: String)?
        var lastSync = Monotonic.milliseconds
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 256 * 1024)
        do throws(TrackFileError) {
            while true {
                // A quiet receiver still gets its last fixes synced on time.
                if let current, current.hasUnsynced {
                    let due = lastSync + Int64(options.syncSeconds * 1000) - Monotonic.milliseconds
                    if due <= 0 || pollOne(STDIN_FILENO, events: Int16(POLLIN), milliseconds: Int32(clamping: due)) == 0 {
                        try current.sync()
                        lastSync = Monotonic.milliseconds
                    }
                }
                let count = chunk.withUnsafeMutableBytes { buffer in
                    retryingInterrupts { read(STDIN_FILENO, buffer.baseAddress, buffer.count) }
                }
                if count <= 0 { break }  // loctrack closed the pipe (or is gone)
                pending += chunk[..<count]
                let (frames, consumed) = RecordFrame.decode(pending[...])
                pending.removeFirst(consumed)
                // One write per file per read: consecutive frames that go to the same file.
                var index = 0
                while index < frames.count {
                    let name = Self.name(for: frames[index].seconds, pattern: options.path, cache: &nameCache)
                    var last = index + 1
                    while last < frames.count,
                          Self.name(for: frames[last].seconds, pattern: options.path, cache: &nameCache) == name {
                        last += 1
                    }
                    if name != currentName {
                        try current?.sync()
                        current = nil
                        current = try TrackFile(path: name, layout: layout) { printError($0) }
                        currentName = name
                    }
                    try current?.append(frames[index..<last].map { ($0.payload, $0.startsSegment) })
                    index = last
                }
                let now = Monotonic.milliseconds
                if Double(now - lastSync) >= options.syncSeconds * 1000 {
                    try current?.sync()
                    lastSync = now
                }
            }
            try current?.sync()
            return .success
        } catch {
            printError(error.description)
            return error.exitCode
        }
    }

    /// The file for a record at `seconds`; the pattern is formatted once per second of time.
    private static func name(for seconds: Int64, pattern: TrackPathPattern,
                             cache: inout (seconds: Int64, name: String)?) -> String {
        if let cache, cache.seconds == seconds { return cache.name }
        let name = pattern.fileName(utcSeconds: seconds)
        cache = (seconds, name)
        return name
    }
}

/// `loctrack __record-writer --format F --sync S --output PATH`: what ``RecordingSink``
/// starts. Not a command for people; its arguments are loctrack's own.
public struct RecordWriterOptions: Equatable, Sendable {
    public var format: OutputFormat
    public var path: TrackPathPattern
    public var syncSeconds: Double

    static let commandName = "__record-writer"

    /// The arguments that start the writer for `options` (after the program name).
    static func arguments(format: OutputFormat, options: RecordOptions) -> [String] {
        [commandName, "--format", format.rawValue, "--sync", "\(options.syncSeconds)", "--output", options.path.text]
    }

    static func parse(_ arguments: ArraySlice<String>) throws(UsageError) -> RecordWriterOptions {
        var format: OutputFormat?
        var path: TrackPathPattern?
        var syncSeconds = RecordOptions.defaultSyncSeconds
        var scanner = ArgumentScanner(arguments, command: OptionTable.recordWriter)
        while let argument = try scanner.next() {
            switch argument {
            case .option("--format"): format = try scanner.format()
            case .option("--sync"): syncSeconds = try scanner.nonNegativeNumber(for: "--sync", unit: "seconds")
            case .option("--output"):
                let text = try scanner.value(for: "--output")
                do { path = try TrackPathPattern(text) } catch {
                    throw .invalidValue(text, option: "--output", expected: error.expected)
                }
            case .option(let name): throw .unknownOption(name, command: commandName)
            case .positional(let text): throw .unexpectedArgument(text, command: commandName)
            }
        }
        guard let format else { throw .missingValue(option: "--format") }
        guard let path else { throw .missingValue(option: "--output") }
        return RecordWriterOptions(format: format, path: path, syncSeconds: syncSeconds)
    }
}
