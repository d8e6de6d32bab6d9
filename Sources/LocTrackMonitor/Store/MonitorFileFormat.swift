package import LocTrack

/// The monitor state file: a ``MonitorSnapshot`` as one line of JSON, followed by the
/// decisions a running monitor made since (a journal, one line per save).
///
/// ```
/// {"loctrack":"monitor","version":1,"name":"default","nextSerial":3,
///  "lastFixTime":"2026-11-22T04:25:03.240Z",
///  "conditions":[{"id":"home","serial":1,
///    "region":{"type":"Point","coordinates":[13.4,52.5],"radius":150},
///    "state":"satisfied",
///    "lastEvent":{"state":"satisfied","time":"…","lat":52.5,"lon":13.4,"eph":4.2,"accuracyLimited":true},
///    "pending":{"state":"unsatisfied","since":"…"},
///    "accuracyLimitReported":true,"added":"2026-11-22T04:20:00.000Z","title":"Home"}]}
/// ```
/// written compactly on one line and followed by a newline. Members in this order;
/// optional ones are left out when absent (`lastFixTime`, `lastEvent`, `pending`, `eph`, `added`, `title`)
/// or false (`accuracyLimited`, `accuracyLimitReported`); `time`, `lat` and `lon` of a
/// `lastEvent` come together or not at all (an event without a fix).
/// - `loctrack` tags the file, `version` is 1 or 2: a reader refuses other versions, and any
///   member it does not know, rather than dropping data it cannot keep on the next write.
///   Version 2 adds a condition's `title` (its display name); a file is written as version 1
///   while no condition has a title, so a loctrack that reads only version 1 still reads it,
///   and refuses (rather than loses) the titles of a version 2 file.
/// - `region` is ``GeofenceCondition/geoJSONGeometry``, a GeoJSON geometry.
/// - `state` and `pending.state` are `unknown`, `satisfied` or `unsatisfied` (a held
///   condition is never `unmonitored`); `lastEvent.state` may be any ``GeofenceState``.
/// - Times are ISO 8601 UTC. `Timestamp.iso8601` writes milliseconds only (gpsd's
///   resolution) and its parser reads up to nanoseconds; a time with a finer fraction
///   is written with 9 digits here, so every stored time reads back exactly.
/// - A restored `lastEvent`'s fix has its time, position and `eph` only (`mode` 2D).
///
/// **The journal.** A running monitor saves its decisions by appending one line per save
/// instead of rewriting the whole file (with 10,000 polygons that is 3 MB per decision):
/// ```
/// {"decisions":[{"id":"home","serial":1,"state":"unsatisfied","lastEvent":{…}}],"lastFixTime":"…"}
/// ```
/// Each record replaces the decided members (`state`, `lastEvent`, `pending`,
/// `accuracyLimitReported`) of the condition with that `id` and `serial`; `lastFixTime`
/// replaces the snapshot's. A last line without its newline is a save that a crash or a
/// power cut interrupted: it is left out, and the next save rewrites the whole file.
/// Every whole write (``encode(_:)``) folds the journal into the first line.
///
/// **The outbox.** Events are saved with the decisions that cause them (``GeofenceDelivery``):
/// the first line's `"nextEvent"` is the number the next event gets (left out while it is
/// 1) and `"outbox"` the events not yet confirmed delivered (left out when empty), each
/// `{"seq":7,"id":"home","state":"unsatisfied","previous":"satisfied","time":…,"lat":…,"lon":…,"eph":…}`;
/// a journal line adds its new events as `"events":[…]` and confirms deliveries with
/// `"delivered":7` (every event up to 7 reached its destinations). An event's `previous`
/// (also in `lastEvent`) is left out when it is `unknown`.
package enum MonitorFileFormat {
    static let tag = "monitor"
    /// The newest version, which this loctrack reads along with every older one.
    static let version = 2
    /// The first version with conditions' `title`s.
    static let titleVersion = 2

    /// The version a snapshot is written as: the oldest that holds everything in it.
    static func version(for snapshot: MonitorSnapshot) -> Int {
        snapshot.conditions.contains { $0.title != nil } ? titleVersion : 1
    }

    /// The file's bytes, newline-terminated.
    package static func encode(_ snapshot: MonitorSnapshot) -> [UInt8] {
        var members: [JSONMember] = [
            JSONMember("loctrack", .string(tag)),
            JSONMember("version", .number(Double(version(for: snapshot)))),
            JSONMember("name", .string(snapshot.name)),
            JSONMember("nextSerial", .number(Double(snapshot.nextSerial))),
        ]
        if let time = snapshot.lastFixTime { members.append(JSONMember("lastFixTime", .string(storedTime(time)))) }
        members.append(JSONMember("conditions", .array(snapshot.conditions.map(encode))))
        if snapshot.nextEventSequence > 1 {
            members.append(JSONMember("nextEvent", .number(Double(snapshot.nextEventSequence))))
        }
        if !snapshot.outbox.isEmpty { members.append(JSONMember("outbox", .array(snapshot.outbox.map(encode)))) }
        return Array((JSONValue.object(members).serialized + "\n").utf8)
    }

    /// The snapshot in `bytes`, read from `path` (named in errors).
    /// - Throws: ``GeofenceError/corruptStateFile(path:reason:)`` saying what does not match.
    package static func decode(_ bytes: [UInt8], path: String) throws(GeofenceError) -> MonitorSnapshot {
        let decoder = MonitorFileDecoder(path: path)
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        var snapshot = try decoder.snapshot(lines.first ?? [])
        let journal = lines.dropFirst().dropLast()
        guard !journal.isEmpty else { return snapshot }
        // Identifiers are unique (the first line's decoder checks), so this index is exact.
        let slots = Dictionary(uniqueKeysWithValues: snapshot.conditions.indices.map { (snapshot.conditions[$0].identifier, $0) })
        // Complete journal lines only: after the last newline comes "" or an interrupted save.
        for (index, line) in journal.enumerated() {
            try decoder.applyDecisions(line, lineNumber: index + 2, to: &snapshot, slots: slots)
        }
        return snapshot
    }

    /// One journal line: the decided members of `conditions`, the events they caused
    /// (`events`, into the outbox), the deliveries confirmed up to `delivered`, and the
    /// newest fix's time.
    package static func encodeDecisions(
        _ conditions: [MonitoredCondition], events: [GeofenceDelivery] = [], delivered: Int? = nil, lastFixTime: Timestamp?
    ) -> [UInt8] {
        var members = [JSONMember("decisions", .array(conditions.map { .object(decisionMembers($0)) }))]
        if !events.isEmpty { members.append(JSONMember("events", .array(events.map(encode)))) }
        if let delivered { members.append(JSONMember("delivered", .number(Double(delivered)))) }
        if let time = lastFixTime { members.append(JSONMember("lastFixTime", .string(storedTime(time)))) }
        return Array((JSONValue.object(members).serialized + "\n").utf8)
    }

    /// An outbox entry: its number and identifier, then the event's members.
    private static func encode(_ delivery: GeofenceDelivery) -> JSONValue {
        guard case .object(let members) = encode(delivery.event) else { preconditionFailure("an event is an object") }
        return .object([
            JSONMember("seq", .number(Double(delivery.sequence))), JSONMember("id", .string(delivery.event.identifier)),
        ] + members)
    }

    /// `id`, `serial` and the members a running monitor decides.
    private static func decisionMembers(_ condition: MonitoredCondition) -> [JSONMember] {
        var members: [JSONMember] = [
            JSONMember("id", .string(condition.identifier)),
            JSONMember("serial", .number(Double(condition.serial))),
            JSONMember("state", .string(heldState(condition.state))),
        ]
        if let event = condition.lastEvent { members.append(JSONMember("lastEvent", encode(event))) }
        if let pending = condition.pending {
            members.append(JSONMember("pending", [
                "state": .string(heldState(pending.state)), "since": .string(storedTime(pending.since)),
            ]))
        }
        if condition.accuracyLimitReported { members.append(JSONMember("accuracyLimitReported", true)) }
        return members
    }

    private static func encode(_ condition: MonitoredCondition) -> JSONValue {
        var members = decisionMembers(condition)
        members.insert(JSONMember("region", condition.condition.geoJSONGeometry), at: 2)
        // When it was added, by the wall clock: OwnTracks names a region by it (`wtst`).
        if let added = condition.added { members.append(JSONMember("added", .string(storedTime(added)))) }
        if let title = condition.title { members.append(JSONMember("title", .string(title))) }
        return .object(members)
    }

    private static func encode(_ event: GeofenceEvent) -> JSONValue {
        var members = [JSONMember("state", .string(event.state.rawValue))]
        if event.previousState != .unknown { members.append(JSONMember("previous", .string(event.previousState.rawValue))) }
        if let fix = event.fix {
            members.append(JSONMember("time", .string(storedTime(fix.time))))
            members.append(JSONMember("lat", .number(fix.latitude)))
            members.append(JSONMember("lon", .number(fix.longitude)))
            if let eph = fix.horizontalError { members.append(JSONMember("eph", .number(eph))) }
        }
        if event.accuracyLimited { members.append(JSONMember("accuracyLimited", true)) }
        return .object(members)
    }

    /// A held condition is never `unmonitored` (that is only the event of a removal):
    /// storing one would write a file no reader accepts, so it is a programming error.
    private static func heldState(_ state: GeofenceState) -> String {
        precondition(state != .unmonitored, "a monitored condition cannot be in the unmonitored state")
        return state.rawValue
    }

    /// ISO 8601 UTC, with milliseconds unless the time has a finer fraction (then 9 digits).
    static func storedTime(_ time: Timestamp) -> String {
        let milliseconds = time.iso8601
        guard time.nanoseconds % 1_000_000 != 0 else { return milliseconds }
        let digits = String(time.nanoseconds)
        return milliseconds.dropLast(4) + String(repeating: "0", count: 9 - digits.count) + digits + "Z"
    }
}
