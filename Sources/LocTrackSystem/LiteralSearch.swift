extension StringProtocol {
    /// The first occurrence of `needle` in this text, character by character.
    ///
    /// Not the standard library's `firstRange(of:)`: that one lives in _StringProcessing, and
    /// calling it links the whole regex engine into `loctrack` for three searches of a few
    /// characters (docs/performance.md, "Serve").
    package func range(ofLiteral needle: String) -> Range<Index>? {
        guard !needle.isEmpty else { return startIndex..<startIndex }
        var start = startIndex
        while start < endIndex {
            if self[start...].hasPrefix(needle) {
                return start..<index(start, offsetBy: needle.count)
            }
            formIndex(after: &start)
        }
        return nil
    }
}
