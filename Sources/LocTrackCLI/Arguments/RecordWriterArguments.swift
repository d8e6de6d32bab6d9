import LocTrackFormats
import LocTrackSinks

/// `__record-writer`'s words, as ``RecordWriterOptions/arguments(format:options:)`` wrote them.
extension RecordWriterOptions {
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
