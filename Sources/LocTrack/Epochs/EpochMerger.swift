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

    private var devices: [String: DeviceEpochs] = [:]
    private var reports = 0

    /// Whether any device holds a fix not yet emitted (it waits for the epoch to end).
    var isHoldingFixes: Bool { devices.values.contains { $0.held != nil } }

    /// Takes one TPV report; calls `emit` for each fix that is now complete, in order.
    mutating func accept(_ report: TPVReport, emit: (Fix) -> Void) {
        let key = report.device ?? ""
        guard let fix = report.fix else {
            if report.mode < 2 {
                // The receiver lost its fix: the epoch it was in is over, and it will re-learn.
                devices[key]?.flush(emit: emit)
                devices[key]?.consecutiveSingles = 0
            }
            return
        }
        reports += 1
        if devices[key] == nil && devices.count >= Self.maximumDevices {
            forgetLeastRecentDevice(emit: emit)
        }
        devices[key, default: DeviceEpochs()].accept(fix, emit: emit)
        devices[key]?.lastReport = reports
    }

    private mutating func forgetLeastRecentDevice(emit: (Fix) -> Void) {
        guard let oldest = devices.min(by: { $0.value.lastReport < $1.value.lastReport })?.key else { return }
        devices[oldest]?.flush(emit: emit)
        devices[oldest] = nil
    }

    /// Emits every held fix: the connection is ending, or the device went quiet.
    mutating func flush(emit: (Fix) -> Void) {
        for key in devices.keys.sorted() {
            devices[key]?.flush(emit: emit)
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
struct RecentTimes {
    private var order: [Timestamp] = []
    private var next = 0
    private var members: Set<Timestamp> = []

    func contains(_ time: Timestamp) -> Bool { members.contains(time) }

    mutating func insert(_ time: Timestamp) {
        guard members.insert(time).inserted else { return }
        if order.count < EpochMerger.rememberedTimes {
            order.append(time)
        } else {
            members.remove(order[next])
            order[next] = time
            next = (next + 1) % order.count
        }
    }
}
