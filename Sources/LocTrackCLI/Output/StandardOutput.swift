import LocTrack
import LocTrackSystem

/// Writes whole lines to stdout with write(2): no stdio buffer, so a line is
/// out the moment the fix is accepted and nothing is lost when a signal ends
/// the program.
struct StandardOutput {
    enum WriteError: Error, Equatable {
        /// The reader went away (`| head -1`): a normal end for a stream.
        case closed
        case failed(Int32)
    }

    let descriptor: Int32 = StandardDescriptor.output

    var isTerminal: Bool { LocTrackSystem.isTerminal(descriptor) }

    func write(_ text: String) throws(WriteError) {
        if let error = writeAll(descriptor, text) {
            throw error == .brokenPipe ? .closed : .failed(error.code)
        }
    }
}

/// One line on stderr: `loctrack: message`.
func printError(_ message: String) {
    writeToStandardError("loctrack: \(message)\n")
}

func writeToStandardError(_ text: String) {
    _ = writeAll(StandardDescriptor.error, text)
}
