import LocTrack
import Synchronization
import LocTrackSystem
import LocTrackFormats
import LocTrackSinks

/// `once`'s one-line progress on a terminal's stderr, redrawn in place every
/// second: elapsed time, satellites seen and used (from gpsd's SKY), and the best
/// accuracy so far. Nothing is drawn when stderr is not a terminal.
final class WaitingStatusLine: Sendable {
    private struct State {
        var seen: Int?
        var used: Int?
        var bestError: Double?
        var fixesSeen = 0
        var drawn = false
        /// Set by ``erase()``: nothing is drawn after it, even by a redraw already under way.
        var finished = false
    }

    private let start = ContinuousClock.now
    private let state = Mutex(State())

    static var isUseful: Bool { isTerminal(StandardDescriptor.error) }

    func update(_ view: SkyView) {
        state.withLock {
            $0.seen = view.seen
            $0.used = view.used
        }
    }

    func consider(_ fix: Fix) {
        state.withLock { state in
            state.fixesSeen += 1
            if let error = fix.horizontalError, error < (state.bestError ?? .infinity) { state.bestError = error }
        }
    }

    /// The text of the line, e.g. `waiting for a fix: 4 s, 9 satellites seen, 6 used, best ±35.2 m`.
    var text: String {
        let elapsed = (ContinuousClock.now - start).components.seconds
        return state.withLock { state in
            var text = "waiting for a fix: \(elapsed) s"
            if let seen = state.seen, let used = state.used {
                text += ", \(seen) satellites seen, \(used) used"
            } else {
                text += ", no satellite data yet"
            }
            if let best = state.bestError {
                text += ", best ±"
                text.appendFixed(best, decimals: 1)
                text += " m"
            } else if state.fixesSeen > 0 {
                text += ", \(state.fixesSeen) fixes without an accuracy estimate"
            }
            return text
        }
    }

    /// Redraws the line every second until the task is cancelled, then erases it.
    func run() async {
        while !Task.isCancelled {
            let line = "\r\u{1B}[2K" + text
            // Drawn under the lock, so erase() cannot slip in between the check and the write.
            let stop = state.withLock { state -> Bool in
                guard !state.finished else { return true }
                state.drawn = true
                writeToStandardError(line)
                return false
            }
            if stop { return }
            try? await Task.sleep(for: .seconds(1))
        }
        erase()
    }

    /// Erases the line for good.
    func erase() {
        state.withLock { state in
            state.finished = true
            if state.drawn { writeToStandardError("\r\u{1B}[2K") }
            state.drawn = false
        }
    }
}
