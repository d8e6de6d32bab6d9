// stderr for loctrack's own messages: one `write` per line, no stdio buffer.

/// One line on stderr: `loctrack: message`.
package func printError(_ message: String) {
    writeToStandardError("loctrack: \(message)\n")
}

package func writeToStandardError(_ text: String) {
    _ = writeAll(StandardDescriptor.error, text)
}
