/// Why a text is not JSON: the byte where reading stopped, and what was expected there.
package struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Zero-based offset of the offending byte (the text's length when it ended too soon).
    package let offset: Int
    /// What was expected and what was found, e.g. "expected ',' or ']' after an array element, found '}'".
    package let reason: String

    package init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    package var description: String { "invalid JSON at byte \(offset): \(reason)" }
}
