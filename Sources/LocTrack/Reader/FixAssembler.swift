/// The epoch merger and the sink it feeds, kept across reconnections so an
/// epoch seen before gpsd restarted is not emitted again after.
final class FixAssembler {
    private var merger = EpochMerger()
    private let sink: @Sendable (ReaderEvent) -> Void

    init(sink: @escaping @Sendable (ReaderEvent) -> Void) {
        self.sink = sink
    }

    var isHoldingFixes: Bool { merger.isHoldingFixes }

    func accept(_ report: TPVReport) {
        let sink = self.sink
        merger.accept(report) { sink(.fix($0)) }
    }

    func flush() {
        let sink = self.sink
        merger.flush { sink(.fix($0)) }
    }
}
