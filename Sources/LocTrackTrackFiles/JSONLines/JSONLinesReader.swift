import LocTrack
import LocTrackRecordedLines
import LocTrackSystem

/// Reads a file of JSON lines: loctrack's TPV lines, GeoJSON Features and OwnTracks
/// locations, line by line through ``RecordedLineReader`` (the reader `serve --track` uses
/// too). Each line is read on its own, so a bad line costs that line only; a last line
/// without its end that is not whole JSON is where the file was cut.
package enum JSONLinesReader {
    /// - Parameter inPlace: false reads every line through the tree, as before the in-place
    ///   reading: what the tests compare it with, line by line and message by message.
    package static func read(_ bytes: [UInt8], inPlace: Bool = true) -> TrackFileReading {
        var reading = TrackFileReading(format: .jsonLines)
        let file = RecordedBytes(bytes)
        var lines = RecordedLineReader(inPlace: inPlace)
        var lineNumber = 0
        file.contents.withUnsafeBytes { contents in
            var start = 0
            while start < contents.count {
                lineNumber += 1
                let newline = findByte(contents.baseAddress! + start, 0x0A, contents.count - start)
                    .map { contents.baseAddress!.distance(to: UnsafeRawPointer($0)) }
                let end = newline ?? contents.count
                defer { start = end + 1 }
                let line = UnsafeRawBufferPointer(rebasing: contents[start..<end])
                guard !RecordedLineReader.isBlank(line) else { continue }
                switch lines.outcome(of: line) {
                case .success(let outcome):
                    reading.take(outcome, at: "line \(lineNumber)")
                case .failure(let error):
                    if newline == nil {
                        reading.cutShort = .line(lineNumber, "the last line has no end and is not whole JSON")
                    } else {
                        reading.skipUnreadable(.line(lineNumber, "not JSON: \(error)"))
                    }
                }
            }
        }
        if let zeros = file.zerosProblem(afterLine: lineNumber + 1), reading.cutShort == nil { reading.cutShort = zeros }
        return reading
    }
}
