import LocTrackSystem
import LocTrack
import Synchronization
import LocTrackFormats
import LocTrackSinks

/// Says on stderr, once per outage, that loctrack is waiting for gpsd, and when it is back.
final class StatusReporter: Sendable {
    private let verbose: Bool
    private let waiting = Mutex(false)

    init(verbose: Bool) {
        self.verbose = verbose
    }

    func report(_ status: GPSDStatus) {
        switch status {
        case .waiting(let error, _):
            let firstOfOutage = waiting.withLock { waiting in
                defer { waiting = true }
                return !waiting
            }
            if verbose {
                printError("\(status)")
            } else if firstOfOutage {
                printError("\(error); waiting for gpsd (retrying with backoff up to 30 s)")
            }
        case .connected:
            let wasWaiting = waiting.withLock { waiting in
                defer { waiting = false }
                return waiting
            }
            if verbose || wasWaiting { printError("\(status)") }
        case .deviceLost, .noFixes, .fixesResumed:
            printError("\(status)")
        case .skippedReport, .fixLost:
            if verbose { printError("\(status)") }
        }
    }
}
