import LocTrackSystem
import LocTrackTrackFiles
import Synchronization

/// `loctrack trips`' files, stdout and stderr in memory: files by name (a missing one is
/// ENOENT), and a stdout that can fail after some writes (a closed pipe, a full disk).
final class MemoryTripsEnvironment: TripsEnvironment, Sendable {
    private struct State {
        var output = ""
        var errors: [String] = []
        var writes = 0
    }

    let files: [String: [UInt8]]
    /// stdout fails with this from the write after `failAfterWrites` succeeded.
    let outputFailure: (error: Errno, afterWrites: Int)?
    private let state = Mutex(State())

    init(files: [String: [UInt8]], outputFailure: (error: Errno, afterWrites: Int)? = nil) {
        self.files = files
        self.outputFailure = outputFailure
    }

    var output: String { state.withLock { $0.output } }
    var errors: [String] { state.withLock { $0.errors } }
    var outputLines: [String] { output.split(separator: "\n").map(String.init) }

    func readFile(_ path: String) throws(Errno) -> [UInt8] {
        guard let bytes = files[path] else { throw Errno.noSuchFile }
        return bytes
    }

    func writeOutput(_ text: String) throws(Errno) {
        let failure: Errno? = state.withLock { state in
            if let outputFailure, state.writes >= outputFailure.afterWrites { return outputFailure.error }
            state.writes += 1
            state.output += text
            return nil
        }
        if let failure { throw failure }
    }

    func printError(_ line: String) {
        state.withLock { $0.errors.append(line) }
    }
}
