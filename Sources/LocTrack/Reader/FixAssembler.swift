/// The epoch merger and the sink it feeds, kept across reconnections so an
/// epoch seen before gpsd restarted is not emitted again after.
final class FixAssembler {
    private var merger = EpochMerger()
    private var stationary = StationaryDetector()
    private let sink: @Sendable (ReaderEvent) -> Void

    init(sink: @escaping @Sendable (ReaderEvent) -> Void) {
        self.sink = sink
    }

    var isHoldingFixes: Bool { merger.isHoldingFixes }

    func accept(_ report: TPVReport) {
        merger.accept(report) { deliver($0) }
    }

    func flush() {
        merger.flush { deliver($0) }
    }

    private func deliver(_ fix: Fix) {
        sink(.fix(stationary.mark(fix)))
    }
}
