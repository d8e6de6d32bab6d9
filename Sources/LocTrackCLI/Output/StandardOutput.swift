import Glibc

/// Writes whole lines to stdout with write(2): no stdio buffer, so a line is
/// out the moment the fix is accepted and nothing is lost when a signal ends
/// the program.
struct StandardOutput {
    enum WriteError: Error, Equatable {
        /// The reader went away (`| head -1`): a normal end for a stream.
        case closed
        case failed(Int32)
    }

    let descriptor: Int32 = STDOUT_FILENO

    var isTerminal: Bool { isatty(descriptor) == 1 }

    func write(_ text: String) throws(WriteError) {
        var text = text
        let outcome: Int32? = text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let code = outcome {
            throw code == EPIPE ? .closed : .failed(code)
        }
    }
}

/// One line on stderr: `loctrack: message`.
func printError(_ message: String) {
    writeToStandardError("loctrack: \(message)\n")
}
