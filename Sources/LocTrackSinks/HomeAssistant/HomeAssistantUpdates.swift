package import LocTrack
package import LocTrackDistance
import LocTrackFormats

/// What goes to Home Assistant, and when: a pure state machine. The sink feeds it gpsd's
/// events, the monitor's regions and the clock (monotonic milliseconds); it returns the
/// messages to publish now. No I/O, no clock of its own, so its rules are unit-tested.
///
/// The rate (a tracker at 10 Hz floods Home Assistant's database):
/// - the tracker moves when the fix moved beyond its error circle, or every
///   ``stationaryMilliseconds`` while parked, and at most once per interval; the latest
///   position held back goes out when the interval has passed;
/// - the sensors' document goes out at most once per interval, at once when the fix
///   mode or status changes;
/// - connectivity and regions go out at once (they change rarely);
/// - with the odometer (the command measures distance), its reading and whether the
///   receiver moves are two more values of the sensors' document: the distance with the
///   interval, a change of motion at once. Their two entities are announced with the
///   first reading: a command that measures no distance has neither.
/// - a break in the track (gpsd gone, the device lost, no fixes) sends everything held
///   back at once: the last position is the best there is.
package struct HomeAssistantUpdates {
    package let device: HomeAssistantDevice
    package let intervalMilliseconds: Int64
    /// A fix with a larger eph (or with none, when there is a limit) does not move the tracker.
    package let maximumError: Double?
    /// `monitor run`: regions and the `in_zones` tracker.
    package let withRegions: Bool

    /// While parked (the fix stays within its error circle) the tracker still takes the
    /// latest position this often: 5 minutes, 12 messages an hour.
    package static let stationaryMilliseconds: Int64 = 300_000

    private var state = HomeAssistantState()
    private var sentState: HomeAssistantState?
    private var stateSentAt: Int64?

    private var latest: Fix?
    private var sent: Fix?
    private var locationSentAt: Int64?

    private var gpsd: Bool?
    private var receiver: Bool?
    /// The batches carry the odometer's readings: its entities are announced.
    private var measuresDistance = false

    package typealias Region = RegionPresence
    /// The monitor's regions by id, as last announced.
    private var regions: [String: Region] = [:]
    /// ``setRegions(_:)`` was called: until then no region is known to be stale.
    private var regionsKnown = false

    package init(device: HomeAssistantDevice, intervalSeconds: Double, maximumError: Double?, withRegions: Bool) {
        self.device = device
        intervalMilliseconds = Int64((intervalSeconds * 1000).rounded())
        self.maximumError = maximumError
        self.withRegions = withRegions
    }

    // MARK: Inputs

    /// Every configuration, then every current state: at the start, and when Home
    /// Assistant says it (re)started.
    package mutating func announce(now: Int64, spooled: Int) -> [HomeAssistantMessage] {
        var messages = device.configurations(withZones: withRegions)
        if measuresDistance { messages += device.distanceConfigurations() }
        for id in regions.keys.sorted() { messages.append(device.regionConfiguration(id, name: regions[id]!.name)) }
        messages += connectivity()
        for id in regions.keys.sorted() { messages.append(regionState(id)) }
        if withRegions { messages.append(zones()) }
        if sentState != nil { messages.append(stateMessage(now: now, spooled: spooled)) }
        if let sent { messages.append(locationMessage(sent, now: now)) }
        return messages
    }

    /// Takes one of gpsd's events.
    /// - Parameter odometer: the odometer after it, when the command measures distance.
    package mutating func take(
        _ event: GPSDEvent, odometer: OdometerReading? = nil, now: Int64, spooled: Int
    ) -> [HomeAssistantMessage] {
        var messages: [HomeAssistantMessage] = []
        if let odometer {
            if !measuresDistance {
                measuresDistance = true
                messages += device.distanceConfigurations()
            }
            state.odometer = odometer
        }
        switch event {
        case .fix(let fix):
            messages += setReceiver(true)
            state.take(fix)
            if accepts(fix) { latest = fix }
            messages += due(now: now, spooled: spooled)
        case .sky(let sky):
            messages += setReceiver(true)
            state.take(sky)
            messages += due(now: now, spooled: spooled)
        case .status(let status):
            switch status {
            case .connected:
                messages += setGPSD(true)
            case .waiting:
                messages += setGPSD(false) + setReceiver(false)
            case .deviceLost, .noFixes:
                messages += setReceiver(false)
            case .fixesResumed:
                messages += setReceiver(true)
            case .fixLost:
                state.fixLost()
            case .skippedReport:
                break
            }
            if status.breaksTrack { messages += heldBack(now: now, spooled: spooled) }
            messages += due(now: now, spooled: spooled)
        }
        return messages
    }

    /// The clock: what the interval held back and is now due.
    package mutating func tick(now: Int64, spooled: Int) -> [HomeAssistantMessage] {
        due(now: now, spooled: spooled)
    }

    /// When ``tick(now:spooled:)`` next has something to send if nothing else comes: when
    /// the interval (or, parked, the stationary period) held back the latest position or
    /// the sensors. nil: nothing is held back, so nothing is due until the next input.
    package func nextDue(now: Int64) -> Int64? {
        var due: Int64?
        func consider(_ time: Int64) { due = min(due ?? time, time) }
        if let latest, latest != sent {
            let moves = sent.map { moved(from: $0, to: latest) } ?? true
            let period = moves ? intervalMilliseconds : max(intervalMilliseconds, Self.stationaryMilliseconds)
            consider(locationSentAt.map { $0 + period } ?? now)
        }
        if state != sentState, state != HomeAssistantState() {
            consider(state.category != sentState?.category ? now : (stateSentAt.map { $0 + intervalMilliseconds } ?? now))
        }
        return due
    }

    /// Everything held back, at once (the command ends, or the track broke).
    package mutating func heldBack(now: Int64, spooled: Int) -> [HomeAssistantMessage] {
        var messages: [HomeAssistantMessage] = []
        if let latest, latest != sent { messages.append(locationMessage(latest, now: now)) }
        if state != sentState, state != HomeAssistantState() {
            messages.append(stateMessage(now: now, spooled: spooled))
        }
        return messages
    }

    /// The monitor's regions now: configurations for new ones (and renamed ones), an
    /// empty configuration for removed ones, and the states that changed.
    package mutating func setRegions(_ current: [String: Region]) -> [HomeAssistantMessage] {
        regionsKnown = true
        var messages: [HomeAssistantMessage] = []
        for id in regions.keys.sorted() where current[id] == nil {
            messages.append(device.regionRemoval(id))
        }
        for id in current.keys.sorted() {
            let region = current[id]!
            if regions[id]?.name != region.name { messages.append(device.regionConfiguration(id, name: region.name)) }
            if regions[id] != region {
                regions[id] = region
                messages.append(regionState(id))
            }
        }
        for id in regions.keys where current[id] == nil { regions[id] = nil }
        if !messages.isEmpty { messages.append(zones()) }
        return messages
    }

    /// A region's configuration Home Assistant still has (retained at the broker) for a
    /// region this monitor no longer has: removed while loctrack was not running.
    package func isStale(regionObject object: String) -> Bool {
        guard withRegions, regionsKnown, object.hasPrefix("region_") else { return false }
        return !regions.keys.contains { "region_" + HomeAssistantDevice.objectID($0) == object }
    }

    // MARK: Rules

    private func accepts(_ fix: Fix) -> Bool {
        guard let maximumError else { return true }
        guard let error = fix.horizontalError else { return false }
        return error <= maximumError
    }

    private mutating func due(now: Int64, spooled: Int) -> [HomeAssistantMessage] {
        var messages: [HomeAssistantMessage] = []
        if let latest, latest != sent, elapsed(since: locationSentAt, now) >= intervalMilliseconds {
            if sent.map({ moved(from: $0, to: latest) }) ?? true
                || elapsed(since: locationSentAt, now) >= Self.stationaryMilliseconds {
                messages.append(locationMessage(latest, now: now))
            }
        }
        // Nothing known yet is nothing to say.
        if state != sentState, state != HomeAssistantState(),
           state.category != sentState?.category || elapsed(since: stateSentAt, now) >= intervalMilliseconds {
            messages.append(stateMessage(now: now, spooled: spooled))
        }
        return messages
    }

    /// Milliseconds since `time`; "forever" when it never happened.
    private func elapsed(since time: Int64?, _ now: Int64) -> Int64 {
        time.map { now - $0 } ?? .max
    }

    /// Beyond the larger of the two error circles: a real move, not gpsd's wander.
    private func moved(from old: Fix, to new: Fix) -> Bool {
        new.distance(to: old) > max(old.horizontalError ?? 0, new.horizontalError ?? 0)
    }

    // MARK: Messages

    private mutating func locationMessage(_ fix: Fix, now: Int64) -> HomeAssistantMessage {
        sent = fix
        locationSentAt = now
        // gpsd's values as they are: Home Assistant's accuracy is gpsd's eph, to the centimetre.
        var members = [JSONMember("latitude", .number(fix.latitude)), JSONMember("longitude", .number(fix.longitude))]
        if let error = fix.horizontalError { members.append(JSONMember("gps_accuracy", .number(error))) }
        if let altitude = fix.altitudeMSL ?? fix.altitudeHAE { members.append(JSONMember("altitude", .number(altitude))) }
        if let speed = fix.speed { members.append(JSONMember("speed", .number(speed))) }
        if let course = fix.track { members.append(JSONMember("course", .number(course))) }
        members.append(JSONMember("source_type", .string("gps")))
        members.append(JSONMember("time", .string(fix.time.iso8601)))
        return HomeAssistantMessage(device.locationTopic, json: .object(members))
    }

    private mutating func stateMessage(now: Int64, spooled: Int) -> HomeAssistantMessage {
        sentState = state
        stateSentAt = now
        return HomeAssistantMessage(device.stateTopic, json: state.json(spooled: spooled))
    }

    private mutating func setGPSD(_ on: Bool) -> [HomeAssistantMessage] {
        guard gpsd != on else { return [] }
        gpsd = on
        return [HomeAssistantMessage(device.gpsdTopic, on ? "ON" : "OFF")]
    }

    private mutating func setReceiver(_ on: Bool) -> [HomeAssistantMessage] {
        guard receiver != on else { return [] }
        receiver = on
        return [HomeAssistantMessage(device.receiverTopic, on ? "ON" : "OFF")]
    }

    private func connectivity() -> [HomeAssistantMessage] {
        var messages: [HomeAssistantMessage] = []
        if let gpsd { messages.append(HomeAssistantMessage(device.gpsdTopic, gpsd ? "ON" : "OFF")) }
        if let receiver { messages.append(HomeAssistantMessage(device.receiverTopic, receiver ? "ON" : "OFF")) }
        return messages
    }

    private func regionState(_ id: String) -> HomeAssistantMessage {
        HomeAssistantMessage(device.regionTopic(id), regions[id]?.inside == true ? "ON" : "OFF")
    }

    /// Home Assistant 2026.7's `in_zones`: the zones (named like the regions' ids) the
    /// monitor says the receiver is in.
    private func zones() -> HomeAssistantMessage {
        let inside = regions.keys.sorted().filter { regions[$0]!.inside }
        return HomeAssistantMessage(device.zonesTopic, json: .object([
            JSONMember("in_zones", .array(inside.map { .string("zone." + HomeAssistantDevice.objectID($0)) })),
            JSONMember("source_type", .string("gps")),
        ]))
    }
}
