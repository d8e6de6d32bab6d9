@testable import LocTrackWeb
import Synchronization

/// Clocks a test sets by hand: no test waits for time to pass.
final class ManualClock: Sendable {
    private let milliseconds = Mutex<Int64>(0)
    private let wallSeconds: Mutex<Int64>

    init(wallClockSeconds: Int64 = 1_795_687_200) {
        wallSeconds = Mutex(wallClockSeconds)
    }

    func advance(milliseconds step: Int64) {
        milliseconds.withLock { $0 += step }
        wallSeconds.withLock { $0 += step / 1000 }
    }

    var liveClock: LiveClock {
        LiveClock(
            monotonicMilliseconds: { self.milliseconds.withLock { $0 } },
            wallClockSeconds: { self.wallSeconds.withLock { $0 } })
    }
}
