public import LocTrack
public import LocTrackDistance

/// What a Traccar sink does with each fix before the spool: the gate (``PositionGate``),
/// then the thinning (``Thinning``), then the query (``OsmAndQuery``). Each kind of refusal
/// is said once, the first time it happens. Pure: the wall clock is an argument.
public struct TraccarPositions: Sendable {
    public let deviceID: String
    public private(set) var thinning: Thinning
    /// The kinds of ``PositionGate/Refusal`` already said.
    private var said: Set<Int> = []

    public init(deviceID: String, thinning: Thinning = Thinning()) {
        self.deviceID = deviceID
        self.thinning = thinning
    }

    /// What to do with `fix`.
    /// - Parameters:
    ///   - odometer: the odometer's reading after this fix (it counts every fix, sent or not).
    ///   - sky: the latest SKY report, when the session reports satellites.
    ///   - wallClockSeconds: this computer's clock, seconds since 1970.
    /// - Returns: the query to spool (nil: not sent), and a line for stderr the first time
    ///   a kind of refusal happens (nil otherwise).
    public mutating func take(
        _ fix: Fix, odometer: OdometerReading, sky: SkyView? = nil, wallClockSeconds: Int64
    ) -> (query: [UInt8]?, notice: String?) {
        if let refusal = PositionGate.refusal(for: fix, wallClockSeconds: wallClockSeconds) {
            let first = said.insert(refusal.kind).inserted
            return (nil, first ? "traccar: \(refusal)" : nil)
        }
        guard thinning.shouldSend(fix, reading: odometer) else { return (nil, nil) }
        return (OsmAndQuery.encode(fix, deviceID: deviceID, odometer: odometer, sky: sky), nil)
    }
}
