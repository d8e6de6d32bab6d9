import LocTrack

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
