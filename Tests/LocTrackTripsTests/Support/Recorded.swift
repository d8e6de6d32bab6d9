import LocTrack
import LocTrackFormats

/// Track files as loctrack records them, written by loctrack's own encoders (the ones
/// `stream` and `--output` use), so the readers are tested against what the writers write
/// and cannot drift from them.
enum Recorded {
    static func bytes(_ fixes: some Sequence<Fix>, _ format: OutputFormat) -> [UInt8] {
        var encoder = format.makeEncoder(trackerID: "lt")
        var text = encoder.begin()
        for fix in fixes { text += encoder.encode(fix) }
        text += encoder.end()
        return Array(text.utf8)
    }

    static func text(_ fixes: some Sequence<Fix>, _ format: OutputFormat) -> String {
        String(decoding: bytes(fixes, format), as: UTF8.self)
    }
}

extension Array where Element == UInt8 {
    /// The first `count` bytes: a file cut short.
    func cut(to count: Int) -> [UInt8] { Array(prefix(count)) }
}
