
extension String {
    /// The lines that end with `\n` (a trailing partial line is left out).
    package var completeLines: [String] {
        var lines = split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast()  // what follows the last "\n" (empty when the text ends with one)
        return lines
    }
}
