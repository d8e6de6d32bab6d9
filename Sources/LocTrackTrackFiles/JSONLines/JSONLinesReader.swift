import LocTrack

/// Reads a file of JSON lines: loctrack's TPV lines, GeoJSON Features and OwnTracks
/// locations (``JSONRecord``). Each line is read on its own, so a bad line costs that line
/// only; a last line without its end that is not whole JSON is where the file was cut.
enum JSONLinesReader {
    static func read(_ bytes: [UInt8]) -> TrackFileReading {
        var reading = TrackFileReading(format: .jsonLines)
        let file = RecordedBytes(bytes)
        let contents = file.contents
        var lineNumber = 0
        var start = 0
        while start < contents.count {
            lineNumber += 1
            let newline = contents[start...].firstIndex(of: 0x0A)
            let end = newline ?? contents.count
            defer { start = end + 1 }
            let line = contents[start..<end]
            guard line.contains(where: { !TrackFileFormat.isWhitespace($0) }) else { continue }
            let value: JSONValue
            do throws(JSONSyntaxError) {
                value = try JSONValue(parsing: line)
            } catch {
                if newline == nil {
                    reading.cutShort = .line(lineNumber, "the last line has no end and is not whole JSON")
                } else {
                    reading.skipUnreadable(.line(lineNumber, "not JSON: \(error)"))
                }
                continue
            }
            reading.take(JSONRecord.outcome(of: value), at: "line \(lineNumber)")
        }
        if let zeros = file.zerosProblem(afterLine: lineNumber + 1), reading.cutShort == nil { reading.cutShort = zeros }
        return reading
    }
}
