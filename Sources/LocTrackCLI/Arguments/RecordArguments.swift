import LocTrackSinks
import LocTrackFormats

/// Collects `--output` and `--sync` while `stream` or `monitor run` scans its arguments,
/// then checks them together: one place for both commands. `--output` may be given more
/// than once (a GPX file and a CSV file); `--sync` applies to every one.
struct RecordArguments {
    private var paths: [TrackPathPattern] = []
    private var syncSeconds: Double?

    /// Takes `option` and its value when it is a recording option.
    /// - Returns: false when `option` is not one.
    mutating func take(_ option: String, from scanner: inout ArgumentScanner) throws(UsageError) -> Bool {
        switch option {
        case "--output", "-o":
            let text = try scanner.value(for: "--output")
            let path: TrackPathPattern
            do {
                path = try TrackPathPattern(text)
            } catch {
                throw .invalidValue(text, option: "--output", expected: error.expected)
            }
            // Two track writers cannot share a file (the second would find it locked).
            guard !paths.contains(path) else { throw .duplicateOutput(text) }
            paths.append(path)
        case "--sync":
            syncSeconds = try scanner.nonNegativeNumber(for: "--sync", unit: "seconds")
        default:
            return false
        }
        return true
    }

    /// One ``RecordOptions`` per `--output`, in the order given; empty without `--output`.
    /// - Parameter defaultSync: `--sync`'s value when it is not given.
    /// - Throws: `--sync` without `--output`.
    func options(defaultSync: Double = RecordOptions.defaultSyncSeconds) throws(UsageError) -> [RecordOptions] {
        if paths.isEmpty, syncSeconds != nil { throw .needs("--sync", what: "--output") }
        return paths.map { RecordOptions(path: $0, syncSeconds: syncSeconds ?? defaultSync) }
    }
}
