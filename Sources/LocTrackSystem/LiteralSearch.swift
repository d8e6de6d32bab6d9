extension StringProtocol {
    /// The first occurrence of `needle` in this text, character by character.
    ///
    /// Not the standard library's `firstRange(of:)`: that one lives in _StringProcessing, and
    /// calling it links the regex engine into `loctrack` (2.5 MB more binary for three
    /// searches of a few characters). `stream` and `once` stay as lean as they were.
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
