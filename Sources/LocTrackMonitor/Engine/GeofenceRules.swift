import LocTrack

/// The rules a monitor decides by (docs/monitor.md). Only fixes and their receiver times
/// enter them, never the wall clock, so a replay at any speed gives the same events.
package struct GeofenceRules: Sendable, Hashable {
    /// The smallest hysteresis margin, metres.
    package static let minimumMargin = 10.0
    /// The margin as a share of the condition's size.
    package static let marginShare = 0.1

    /// How long (receiver time) a new state must hold before it is reported; 0 reports it at once.
    package var dwellSeconds: Double

    package init(dwellSeconds: Double = 0) {
        self.dwellSeconds = dwellSeconds
    }

    /// How far outside its boundary the error circle must lie for `unsatisfied`:
    /// the larger of 10 m and 10% of the condition's size.
    package static func margin(forSize size: Double) -> Double {
        max(minimumMargin, marginShare * size)
    }

    /// Whether a fix with error estimate `error` lifts a condition's reported accuracy limit,
    /// so that the next fix too poor to decide it is reported again.
    ///
    /// The same hysteresis as at the boundary, applied to the accuracy: the limit is
    /// reported when the error circle grows larger than the condition, and lifted only
    /// when it has shrunk below the condition's size by the margin (at most by half the
    /// size). An `eph` wavering around the size therefore reports the limit once, not
    /// at every swing.
    package static func liftsAccuracyLimit(error: Double?, size: Double) -> Bool {
        guard let error, error.isFinite, error >= 0 else { return false }
        return error <= size - min(margin(forSize: size), size / 2)
    }

    /// What one fix says about one condition.
    package enum Verdict: Equatable {
        /// No `eph`, or an error circle larger than the condition: nothing can be decided.
        case accuracyLimited
        /// The whole error circle lies inside.
        case inside
        /// The error circle lies outside by at least the margin.
        case outside
        /// Neither: the fix is within its error (plus the margin) of the boundary. Keeps the state.
        case undecided
    }

    /// The verdict for a fix with error estimate `error` whose position is `signedDistance`
    /// metres from the boundary (negative inside), on a condition of `size` metres.
    /// The signed distance is asked for only when the error estimate can decide.
    package static func verdict(error: Double?, size: Double, signedDistance: () -> Double) -> Verdict {
        guard let error, error.isFinite, error >= 0, error <= size else { return .accuracyLimited }
        let signedDistance = signedDistance()
        if signedDistance <= -error { return .inside }
        if signedDistance >= error + margin(forSize: size) { return .outside }
        return .undecided
    }
}
