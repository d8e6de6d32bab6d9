// stderr for loctrack's own messages: one `write` per line, no stdio buffer.

/// One line on stderr: `loctrack: message`.
package func printError(_ message: String) {
    writeToStandardError("loctrack: \(message)\n")
}

/// `text` on stderr. A stderr that is gone is ignored: there is no one left to tell.
package func writeToStandardError(_ text: String) {
    try? writeAll(StandardDescriptor.error, text)
}
