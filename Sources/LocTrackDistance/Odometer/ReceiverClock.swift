import LocTrack

/// Decides which positions are in time order, for the odometer and the trip detector alike,
/// so that both skip the same positions.
///
/// Receiver time only moves forward: a position dated at or before the newest one accepted
/// is skipped (gpsd sends two reports for one epoch on some receivers, and a stray report
/// from the past must not subtract or add distance). A clock that really stepped back (a
/// receiver that fixed its week-rollover date, or a replay of an older track) would then
/// freeze everything until its time caught up, possibly years; so after
/// ``stepBackPositions`` positions in a row that are all behind, the newest of them
/// starts the time line again.
struct ReceiverClock: Sendable {
    /// How many positions in a row behind the newest accepted one mean that the clock
    /// stepped back, rather than a stray position from the past.
    static let stepBackPositions = 10

    enum Verdict: Equatable {
        /// The first position, or one after a clock step back: nothing before it counts.
        case restart
        /// A later position: `elapsed` seconds after the newest accepted one.
        case later(elapsed: Double)
        /// At or before the newest accepted position: skip it.
        case skip
    }

    private(set) var newest: Timestamp?
    private var behindInARow = 0

    mutating func judge(_ time: Timestamp) -> Verdict {
        guard let newest else {
            self.newest = time
            return .restart
        }
        if time > newest {
            behindInARow = 0
            self.newest = time
            return .later(elapsed: time.seconds(since: newest))
        }
        // A repeated epoch is a duplicate, not a clock going back.
        guard time < newest else { return .skip }
        behindInARow += 1
        guard behindInARow >= Self.stepBackPositions else { return .skip }
        behindInARow = 0
        self.newest = time
        return .restart
    }
}
