import LocTrackSystem

extension TrackPathPattern {
    /// The file name for a record at `seconds` since 1970 (UTC): the pattern with its
    /// `strftime` fields filled in.
    package func fileName(utcSeconds seconds: Int64) -> String {
        guard rotates || text.contains("%") else { return text }
        do throws(Errno) {
            return try formatUTC(text, seconds: seconds)
        } catch {
            return text  // nothing to fill in, or a time strftime cannot show: the text as it is
        }
    }
}
