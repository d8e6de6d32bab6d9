import LocTrack
package import LocTrackSystem
package import LocTrackProcess

/// Why a track file cannot be written; its description is the one line on stderr.
package struct TrackFileError: Error, CustomStringConvertible {
    package enum Kind {
        /// A system call failed: a folder that cannot be made, a full disk, no permission.
        case io(action: String, Errno)
        /// The file exists but is not one loctrack can continue; it is left untouched.
        case notContinuable(String)
        /// Another loctrack records into the file.
        case busy
    }

    package let path: String
    package let kind: Kind

    package var description: String {
        switch kind {
        case .io(let action, let error): "cannot \(action) \(path): \(error)"
        case .notContinuable(let reason): "\(path) exists and cannot be continued: \(reason); it was left as it is"
        case .busy: "\(path) is being recorded by another loctrack"
        }
    }

    /// docs/exit-codes.md: 74 for the file system, 65 for a file of other contents, 75 busy.
    package var exitCode: ExitCode {
        switch kind {
        case .io: .outputFailed
        case .notContinuable: .dataError
        case .busy: .temporaryFailure
        }
    }
}
