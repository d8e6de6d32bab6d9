import LocTrackSystem

extension TrackPathPattern {
    /// The file name for a record at `seconds` since 1970 (UTC): the pattern with its
    /// `strftime` fields filled in.
    package func fileName(utcSeconds seconds: Int64) -> String {
        guard rotates || text.contains("%") else { return text }
        return formatUTC(text, seconds: seconds) ?? text
    }
}
