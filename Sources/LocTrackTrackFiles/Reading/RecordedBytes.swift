/// The bytes of a track file with what a power cut can leave at its end taken off: ext4 can
/// commit a file's new size before its data, so the file ends in zero bytes where the last
/// records should be. loctrack's own recorder cuts them off the next time it records into
/// the file (docs/recording.md); a file read before that has them.
struct RecordedBytes {
    /// The contents up to the trailing zero bytes.
    let contents: [UInt8]
    /// How many zero bytes ended the file (0: none).
    let trailingZeros: Int

    init(_ bytes: [UInt8]) {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0 { end -= 1 }
        trailingZeros = bytes.count - end
        contents = trailingZeros == 0 ? bytes : Array(bytes[..<end])
    }

    /// The problem to report for the zeros, at the line after the last (1-based), if any.
    func zerosProblem(afterLine line: @autoclosure () -> Int) -> RecordProblem? {
        trailingZeros == 0 ? nil : .line(line(), "\(trailingZeros) zero bytes where the last records should be (a power cut)")
    }

    /// The number of lines the contents span (a last line without its end counts): a pass
    /// over the file, made only when a problem needs it.
    var lineCount: Int {
        let count = contents.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        return contents.last == 0x0A || contents.isEmpty ? count : count + 1
    }
}
