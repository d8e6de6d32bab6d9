import LocTrack
import LocTrackSystem
import LocTrackFormats

/// Writes whole lines to stdout with write(2): no stdio buffer, so a line is
/// out the moment the fix is accepted and nothing is lost when a signal ends
/// the program.
package struct StandardOutput {
    package init() {}

    package enum WriteError: Error, Equatable {
        /// The reader went away (`| head -1`): a normal end for a stream.
        case closed
        case failed(Int32)
    }

    package let descriptor: Int32 = StandardDescriptor.output

    package var isTerminal: Bool { LocTrackSystem.isTerminal(descriptor) }

    package func write(_ text: String) throws(WriteError) {
        do throws(Errno) {
            try writeAll(descriptor, text)
        } catch {
            throw error == .brokenPipe ? .closed : .failed(error.code)
        }
    }
}
