/// Turns gpsd's TPV reports into exactly one fix per (device, time).
///
/// While gpsd is still learning an NMEA receiver's cycle it sends a TPV per
/// sentence (RMC, then GGA, then GSA…), all with the same time and each a
/// superset of the one before. Once it knows the cycle it sends one TPV per
/// epoch. The merger follows, per device:
///
/// - **Learning**: hold the latest TPV of the epoch; emit it when the time
///   moves on (or on ``flush()``). Latency: one cycle.
/// - **Steady**: after ``steadyAfter`` epochs in a row that each had a single
///   TPV, emit each TPV as it arrives (no added latency). A second TPV for an
///   epoch already emitted is dropped and puts the device back to learning; so
///   does a report without a fix (the receiver lost it and will re-learn), which
///   also ends the epoch being held.
///
/// Over gpsd's 16 regression recordings this emits gpsd's last report of every
/// epoch, with 0 differences (see docs/fixes.md).
struct EpochMerger {
    static let steadyAfter = 3
    /// How many recent epoch times per device are remembered, so a time that
    /// comes back (a receiver stepping its clock back) is not emitted twice:
    /// two minutes at 1 Hz, 13 s at 10 Hz.
    static let rememberedTimes = 128

    /// At most this many devices are followed (a gpsd has a handful; garbage device
    /// names must not grow memory without bound). Beyond it, the device that reported
    /// least recently is flushed and forgotten.
    static let maximumDevices = 64

    private var devices = DeviceTable<DeviceEpochs>()
    private var reports = 0

    /// Whether any device holds a fix not yet emitted (it waits for the epoch to end).
    var isHoldingFixes: Bool { devices.entries.contains { $0.value.held != nil } }

    /// Takes one TPV report; calls `emit` for each fix that is now complete, in order.
    mutating func accept(_ report: TPVReport, emit: (Fix) -> Void) {
        let key = report.device ?? ""
        guard let fix = report.fix else {
            if report.mode < 2, let index = devices.index(of: key) {
                // The receiver lost its fix: the epoch it was in is over, and it will re-learn.
                devices[at: index].flush(emit: emit)
                devices[at: index].consecutiveSingles = 0
            }
            return
        }
        reports += 1
        let index: Int
        if let known = devices.index(of: key) {
            index = known
        } else {
            if devices.count >= Self.maximumDevices { forgetLeastRecentDevice(emit: emit) }
            index = devices.append(key, DeviceEpochs())
        }
        devices[at: index].accept(fix, emit: emit)
        devices[at: index].lastReport = reports
    }

    private mutating func forgetLeastRecentDevice(emit: (Fix) -> Void) {
        guard let oldest = devices.entries.indices.min(by: { devices[at: $0].lastReport < devices[at: $1].lastReport })
        else { return }
        devices[at: oldest].flush(emit: emit)
        devices.remove(at: oldest)
    }

    /// Emits every held fix, devices in the order of their paths: the connection is
    /// ending, or the device went quiet.
    mutating func flush(emit: (Fix) -> Void) {
        for index in devices.entries.indices.sorted(by: { devices.entries[$0].device < devices.entries[$1].device }) {
            devices[at: index].flush(emit: emit)
        }
    }
}

private struct DeviceEpochs {
    /// When this device last reported, counted in reports (for forgetting the least recent).
    var lastReport = 0
    var current: Timestamp?
    var held: Fix?
    var reportsInCurrent = 0
    var currentAlreadyEmitted = false
    var consecutiveSingles = 0
    var recentTimes = RecentTimes()

    mutating func accept(_ fix: Fix, emit: (Fix) -> Void) {
        if fix.time == current {
            reportsInCurrent += 1
            if currentAlreadyEmitted {
                consecutiveSingles = 0  // gpsd added to an epoch we emitted: learn again
            } else {
                held = fix
            }
            return
        }
        if let held { emitAndRemember(held, emit) }
        held = nil
        if current != nil {
            consecutiveSingles = reportsInCurrent == 1 ? consecutiveSingles + 1 : 0
        }
        current = fix.time
        reportsInCurrent = 1
        currentAlreadyEmitted = recentTimes.contains(fix.time)
        if currentAlreadyEmitted { return }
        if consecutiveSingles >= EpochMerger.steadyAfter {
            emitAndRemember(fix, emit)
            currentAlreadyEmitted = true
        } else {
            held = fix
        }
    }

    mutating func flush(emit: (Fix) -> Void) {
        guard let held else { return }
        emitAndRemember(held, emit)
        self.held = nil
        if held.time == current { currentAlreadyEmitted = true }
    }

    private mutating func emitAndRemember(_ fix: Fix, _ emit: (Fix) -> Void) {
        recentTimes.insert(fix.time)
        emit(fix)
    }
}

/// The last ``EpochMerger/rememberedTimes`` epoch times emitted for a device.
///
/// A ring searched linearly, not a `Set`: epoch times nearly always grow, and a
/// time later than every remembered one needs no search at all (``latest``), so
/// the common case runs a comparison instead of the hashed set's code.
struct RecentTimes {
    private var order: [Timestamp] = []
    private var next = 0
    /// At least the latest remembered time (it may have left the ring since).
    private var latest: Timestamp?

    func contains(_ time: Timestamp) -> Bool {
        guard let latest, time <= latest else { return false }
        return order.contains(time)
    }

    mutating func insert(_ time: Timestamp) {
        guard !contains(time) else { return }
        if latest.map({ $0 < time }) ?? true { latest = time }
        if order.count < EpochMerger.rememberedTimes {
            order.append(time)
        } else {
            order[next] = time
            next = (next + 1) % order.count
        }
    }
}
