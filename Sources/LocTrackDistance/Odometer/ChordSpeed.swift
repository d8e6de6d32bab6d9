import LocTrack

/// The speed of positions that carry none: their displacement from a position about
/// ``OdometerRules/chordSpeedWindow`` seconds earlier, over the time between.
///
/// Two anchors leapfrog, so nothing grows and each position costs one distance: the
/// baseline is between half a window and a window long, or the previous position when
/// positions are further apart than that (sparse GPX).
struct ChordSpeed: Sendable {
    private var anchor: OdometerSample?
    private var next: OdometerSample?

    mutating func reset(at sample: OdometerSample) {
        anchor = sample
        next = nil
    }

    /// The speed at `sample` (m/s), and `sample` recorded as a later baseline.
    mutating func speed(at sample: OdometerSample) -> Double {
        let window = OdometerRules.chordSpeedWindow
        if let anchorTime = anchor?.time, sample.time.seconds(since: anchorTime) > window, let next {
            anchor = next
            self.next = nil
        }
        guard let anchor else {
            reset(at: sample)
            return 0
        }
        let elapsed = sample.time.seconds(since: anchor.time)
        if next == nil, elapsed >= window / 2 { next = sample }
        return elapsed > 0 ? anchor.distance(to: sample) / elapsed : 0
    }
}
