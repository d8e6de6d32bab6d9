package import LocTrack

/// The one reader of the JSON lines loctrack records (`stream --output`, `--format json`,
/// `geojson` or `owntracks`) and of `gpspipe -w` logs: what `loctrack trips` reads a file of
/// JSON lines with, and what `serve --track` reads the day so far with, so that a file gives
/// both the same points by the same rules (``JSONRecord``: TPV lines, GeoJSON Features of
/// them and OwnTracks locations are positions).
///
/// A line is first read in place (``FlatJSONRecords``: a day of TPV or GeoJSON lines in a
/// tenth of a second); a line it leaves, and only such a line, is parsed into a tree, which
/// decides the same way and words why a line is unreadable. One reader per file: it keeps the
/// last date's midnight and the last device's name from line to line.
package struct RecordedLineReader {
    private var flat = FlatJSONRecords()
    private let inPlace: Bool

    /// - Parameter inPlace: false reads every line through the tree, as before the in-place
    ///   reading: what the tests compare it with, line by line and message by message.
    package init(inPlace: Bool = true) {
        self.inPlace = inPlace
    }

    /// What `line` (without its line end, not blank) holds, or why it is not JSON at all.
    package mutating func outcome(of line: UnsafeRawBufferPointer) -> Result<RecordOutcome, JSONSyntaxError> {
        if inPlace, let outcome = flat.outcome(of: line) { return .success(outcome) }
        do throws(JSONSyntaxError) {
            return .success(JSONRecord.outcome(of: try JSONValue(parsing: line)))
        } catch {
            return .failure(error)
        }
    }

    /// Whether `line` has nothing but JSON's whitespace: no record, skipped by every reader.
    package static func isBlank(_ line: UnsafeRawBufferPointer) -> Bool {
        !line.contains { !isJSONWhitespace($0) }
    }
}
