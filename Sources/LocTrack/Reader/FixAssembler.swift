/// The epoch merger and the sink it feeds, kept across reconnections so an
/// epoch seen before gpsd restarted is not emitted again after.
final class FixAssembler {
    private var merger = EpochMerger()
    private var stationary = StationaryDetector()
    private let sink: (consuming ReaderEvent) -> Void

    init(sink: @escaping (consuming ReaderEvent) -> Void) {
        self.sink = sink
    }

    var isHoldingFixes: Bool { merger.isHoldingFixes }

    /// Whether a fix held for its epoch is also sent at once as ``ReaderEvent/provisional(_:)``
    /// (for `once`, which wants the first fix that passes, not the complete epoch).
    var sendsProvisionalFixes: () -> Bool = { false }

    func accept(_ report: TPVReport) {
        var emitted = false
        // The closure captures the time alone: capturing `report` copies the whole report.
        let reportTime = report.fix?.time
        merger.accept(report) { fix in
            emitted = emitted || fix.time == reportTime
            deliver(fix)
        }
        if !emitted, let fix = report.fix, fix.isCompleteForItsMode, sendsProvisionalFixes() { sink(.provisional(fix)) }
    }

    func flush() {
        merger.flush { deliver($0) }
    }

    private func deliver(_ fix: Fix) {
        sink(.fix(stationary.mark(fix)))
    }
}

extension Fix {
    /// What `once` asks of a fix it takes before its epoch has ended: a 3D fix carries its
    /// altitude, a 2D fix its horizontal error. An NMEA epoch comes as RMC, GSA and GGA:
    /// gpsd 3.22 sends one TPV at its end, gpsd 3.25 one after each sentence. RMC's has
    /// neither altitude nor DOPs, so 3.25 says mode 2 without `eph` there while the receiver
    /// has a 3D fix; GSA's says mode 3 without altitude; GGA's is the whole fix. A receiver
    /// whose 2D fixes never carry `eph` still gets its fix taken when the epoch ends.
    var isCompleteForItsMode: Bool {
        switch mode {
        case .twoD: horizontalError != nil
        case .threeD: altitudeHAE != nil || altitudeMSL != nil
        }
    }
}
