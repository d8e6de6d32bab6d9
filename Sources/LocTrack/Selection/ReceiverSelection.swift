/// Several receivers on one gpsd become one stream of fixes: one selected receiver, one
/// decision per epoch, by quality and with hysteresis (issue 37's `--device auto`; the
/// rules are in ../shared/docs/receivers-facts.md's "Design rules"). A pure value: no clock
/// and no thread. The caller gives it each fix with the time on its own monotonic clock
/// (receivers' fix times are never compared: week rollovers, leap seconds, old logs), and
/// `tick(at:)` when no fix comes, and forwards a fix only when ``Decision/follows`` says so.
///
/// **Eligible:** the receiver's last fix came within ``Settings/staleAfter``, has at least
/// ``Settings/minimumMode``, finite coordinates, a position class (not time only or
/// simulated), a time later than its previous fix's, and gpsd has not said the device went.
///
/// **Rank:** quality class, then `eph` (none is worst), then the user's order, then the
/// device's name (so that equal receivers always rank alike).
///
/// **Hysteresis:** the selected receiver is left at once when it is no longer eligible. A
/// receiver of a strictly better class takes over once it has been better for
/// ``Settings/betterClassHold``; one of the same class only for an `eph` at most
/// ``Settings/betterAccuracyRatio`` of the selected one's, held for
/// ``Settings/betterAccuracyHold``, and not within ``Settings/minimumBetweenSwitches`` of the
/// last switch. So a receiver that recovers does not retake at once, and two receivers of
/// one class with ordinary `eph` noise never flap.
public struct ReceiverSelection: Sendable {
    /// The figures of the rules, each settable.
    public struct Settings: Sendable, Equatable {
        /// A receiver whose last fix is older than this is not eligible.
        public var staleAfter: Duration = .seconds(3)
        /// The least fix mode followed (3D for a tracker that needs altitude).
        public var minimumMode: Fix.Mode = .twoD
        /// How long a strictly better class must hold before it takes over.
        public var betterClassHold: Duration = .seconds(2)
        /// The same class takes over only with an `eph` at most this share of the selected one's.
        public var betterAccuracyRatio = 0.5
        /// How long that better `eph` must hold.
        public var betterAccuracyHold: Duration = .seconds(10)
        /// No switch within the same class sooner than this after the last switch.
        public var minimumBetweenSwitches: Duration = .seconds(30)
        /// The user's order of devices (gpsd's paths), best first: it breaks ties of class
        /// and `eph`. Devices not named come after those named.
        public var preference: [String] = []

        public init() {}
    }

    /// Why the selection changed.
    public enum Reason: String, Sendable, Equatable {
        /// The first eligible receiver.
        case first
        /// The selected receiver sent nothing within ``Settings/staleAfter``.
        case stale
        /// The selected receiver's fix is no longer one to follow (mode, class, coordinates,
        /// a time that did not advance).
        case ineligible
        /// gpsd said the selected device went away.
        case deviceLost
        /// Another receiver held a strictly better class for ``Settings/betterClassHold``.
        case betterClass
        /// Another receiver of the same class held a clearly better `eph`.
        case betterAccuracy
    }

    /// What a receiver offers when a decision is made.
    public struct Quality: Sendable, Equatable {
        public var device: String
        public var qualityClass: Fix.QualityClass?
        public var eph: Double?

        public init(device: String, qualityClass: Fix.QualityClass?, eph: Double?) {
            self.device = device
            self.qualityClass = qualityClass
            self.eph = eph
        }
    }

    /// A change of the selected receiver, with both qualities, for the `SOURCE` event.
    public struct Switch: Sendable, Equatable {
        /// nil: none was selected.
        public var from: Quality?
        /// nil: no receiver is eligible any more.
        public var to: Quality?
        public var reason: Reason

        public init(from: Quality?, to: Quality?, reason: Reason) {
            self.from = from
            self.to = to
            self.reason = reason
        }
    }

    /// What to do with one fix.
    public struct Decision: Sendable, Equatable {
        /// The fix is the selected receiver's: forward it.
        public var follows: Bool
        /// The selection changed with this fix.
        public var switched: Switch?

        public init(follows: Bool, switched: Switch?) {
            self.follows = follows
            self.switched = switched
        }
    }

    private struct Receiver {
        var fix: Fix
        var seen: Duration
        var timeAdvanced: Bool
        var lost = false
    }

    public let settings: Settings
    /// The selected device (gpsd's path; "" for fixes without one), if any.
    public private(set) var selected: String?
    private var receivers: [String: Receiver] = [:]
    /// The receiver that is beating the selected one, and since which of its fixes (seen when).
    private var challenger: (device: String, since: Duration)?
    private var lastSwitch: Duration?

    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// Takes `fix`, seen at `now` on the caller's monotonic clock.
    public mutating func take(_ fix: Fix, at now: Duration) -> Decision {
        let device = fix.device ?? ""
        let advanced = receivers[device].map { fix.time > $0.fix.time } ?? true
        receivers[device] = Receiver(fix: fix, seen: now, timeAdvanced: advanced)
        let switched = decide(at: now)
        return Decision(follows: device == selected, switched: switched)
    }

    /// Time passes without fixes: the selected receiver may have gone stale.
    public mutating func tick(at now: Duration) -> Switch? {
        decide(at: now)
    }

    /// gpsd said `device` went away: it is not eligible until it sends a fix again.
    public mutating func deviceLost(_ device: String, at now: Duration) -> Switch? {
        receivers[device]?.lost = true
        return decide(at: now)
    }

    // MARK: - The rules

    private mutating func decide(at now: Duration) -> Switch? {
        guard let current = selected else { return selectBest(at: now, reason: .first, excluding: nil) }
        if let reason = ineligibility(of: current, at: now) {
            return selectBest(at: now, reason: reason, excluding: current)
        }
        return challenge(at: now)
    }

    /// Leaves the selected receiver (or none) for the best eligible one.
    private mutating func selectBest(at now: Duration, reason: Reason, excluding left: String?) -> Switch? {
        let best = eligible(at: now).filter { $0 != left }.min(by: ranksBefore)
        guard best != selected else { return nil }
        let from = selected.map(quality(of:))
        selected = best
        challenger = nil
        lastSwitch = now
        return Switch(from: from, to: best.map(quality(of:)), reason: reason)
    }

    /// The selected receiver is eligible: does another beat it, for long enough?
    private mutating func challenge(at now: Duration) -> Switch? {
        guard let current = selected, let held = receivers[current] else { return nil }
        let best = eligible(at: now).filter { $0 != current }.min(by: ranksBefore)
        guard let best, let candidate = receivers[best], let reason = beats(candidate.fix, held.fix) else {
            challenger = nil
            return nil
        }
        // The hold is measured on the challenger's own fixes (the first and the latest seen
        // better), so that a tick or another receiver's fix never counts time the challenger
        // has not shown yet.
        if challenger?.device != best { challenger = (best, candidate.seen) }
        let hold = reason == .betterClass ? settings.betterClassHold : settings.betterAccuracyHold
        guard let since = challenger?.since, candidate.seen - since >= hold else { return nil }
        // Within one class, also not too soon after the last switch (the hold still counts meanwhile).
        if reason == .betterAccuracy, let lastSwitch, now - lastSwitch < settings.minimumBetweenSwitches { return nil }
        let from = quality(of: current)
        selected = best
        challenger = nil
        lastSwitch = now
        return Switch(from: from, to: quality(of: best), reason: reason)
    }

    /// Why `candidate` would replace `selected`, if it would.
    private func beats(_ candidate: Fix, _ selected: Fix) -> Reason? {
        guard let challenging = candidate.qualityClass, let holding = selected.qualityClass else { return nil }
        if challenging > holding { return .betterClass }
        guard challenging == holding, let better = candidate.horizontalError, better.isFinite else { return nil }
        guard let current = selected.horizontalError, current.isFinite else { return .betterAccuracy }
        return better <= current * settings.betterAccuracyRatio ? .betterAccuracy : nil
    }

    /// Why `device` is not eligible at `now`, or nil when it is.
    private func ineligibility(of device: String, at now: Duration) -> Reason? {
        guard let receiver = receivers[device] else { return .stale }
        if receiver.lost { return .deviceLost }
        if now - receiver.seen > settings.staleAfter { return .stale }
        let fix = receiver.fix
        guard receiver.timeAdvanced, fix.mode.rawValue >= settings.minimumMode.rawValue, fix.qualityClass != nil,
              fix.latitude.isFinite, fix.longitude.isFinite
        else { return .ineligible }
        return nil
    }

    private func eligible(at now: Duration) -> [String] {
        receivers.keys.filter { ineligibility(of: $0, at: now) == nil }
    }

    /// Whether `a` ranks before `b`: class, then `eph`, then the user's order, then the name.
    private func ranksBefore(_ a: String, _ b: String) -> Bool {
        guard let first = receivers[a]?.fix, let second = receivers[b]?.fix else { return false }
        let (classA, classB) = (first.qualityClass?.rawValue ?? 0, second.qualityClass?.rawValue ?? 0)
        if classA != classB { return classA > classB }
        let (ephA, ephB) = (first.horizontalError ?? .infinity, second.horizontalError ?? .infinity)
        if ephA != ephB { return ephA < ephB }
        let (orderA, orderB) = (preferenceIndex(a), preferenceIndex(b))
        if orderA != orderB { return orderA < orderB }
        return a < b
    }

    private func preferenceIndex(_ device: String) -> Int {
        settings.preference.firstIndex(of: device) ?? settings.preference.count
    }

    private func quality(of device: String) -> Quality {
        let fix = receivers[device]?.fix
        return Quality(device: device, qualityClass: fix?.qualityClass, eph: fix?.horizontalError)
    }
}
