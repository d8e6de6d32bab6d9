import LocTrack

/// Reads a state file (``MonitorFileFormat``) strictly; every mismatch is a
/// ``GeofenceError/corruptStateFile(path:reason:)`` naming the member, like
/// `conditions[2].lastEvent.time: expected an ISO 8601 UTC time, found "yesterday"`.
struct MonitorFileDecoder {
    let path: String

    func snapshot(_ bytes: some Collection<UInt8>) throws(GeofenceError) -> MonitorSnapshot {
        let document: JSONValue
        do {
            document = try JSONValue(parsing: bytes)
        } catch {
            throw corrupt(error.description)
        }
        guard document.objectValue != nil else { throw corrupt("expected a JSON object, found \(document.kindDescription)") }
        guard document["loctrack"] == .string(MonitorFileFormat.tag) else {
            throw corrupt("not a loctrack monitor state file (expected \"loctrack\":\"monitor\")")
        }
        guard let version = document["version"]?.integerValue else { throw corrupt("expected \"version\" to be a whole number") }
        guard (1...MonitorFileFormat.version).contains(version) else {
            throw corrupt("version \(version) is not one this loctrack reads (it reads versions 1 to \(MonitorFileFormat.version))")
        }
        let top = try object(document, at: "", allowing: [
            "loctrack", "version", "name", "nextSerial", "lastFixTime", "conditions", "nextEvent", "outbox",
        ], version: version)
        var snapshot = MonitorSnapshot(
            name: try top.string("name"),
            nextSerial: try top.integer("nextSerial", minimum: 1),
            lastFixTime: try top.optional("lastFixTime") { value, key throws(GeofenceError) in try top.time(value, key) })
        guard let list = try top.required("conditions").arrayValue else { throw top.mistyped("conditions", "an array") }
        var identifiers: [String: Int] = [:], serials: [Int: Int] = [:]
        for (index, element) in list.enumerated() {
            let context = "conditions[\(index)]"
            let condition = try self.condition(element, at: context, monitor: snapshot.name, version: version)
            if let other = identifiers.updateValue(index, forKey: condition.identifier) {
                throw corrupt("\(context).id: \"\(condition.identifier)\" is also the id of conditions[\(other)]")
            }
            if let other = serials.updateValue(index, forKey: condition.serial) {
                throw corrupt("\(context).serial: \(condition.serial) is also the serial of conditions[\(other)]")
            }
            guard condition.serial < snapshot.nextSerial else {
                throw corrupt("nextSerial \(snapshot.nextSerial) is not above \(context).serial \(condition.serial)")
            }
            snapshot.conditions.append(condition)
        }
        snapshot.nextEventSequence = try top.optional("nextEvent") { value, key throws(GeofenceError) in
            guard let number = value.integerValue, number >= 1 else { throw top.mistyped(key, "a whole number of at least 1") }
            return number
        } ?? 1
        if let list = top.optional("outbox") {
            guard let entries = list.arrayValue else { throw top.mistyped("outbox", "an array") }
            try appendToOutbox(entries, at: "outbox", of: &snapshot)
        }
        return snapshot
    }

    /// Adds outbox entries (the first line's `outbox`, a journal line's `events`) to
    /// `snapshot`: numbered above everything before them.
    func appendToOutbox(_ entries: [JSONValue], at context: String, of snapshot: inout MonitorSnapshot) throws(GeofenceError) {
        for (index, entry) in entries.enumerated() {
            let entryContext = "\(context)[\(index)]"
            let members = try object(entry, at: entryContext, allowing: [
                "seq", "id", "state", "previous", "time", "lat", "lon", "eph", "accuracyLimited",
            ])
            let sequence = try members.integer("seq", minimum: 1)
            let identifier = try members.string("id")
            if let last = snapshot.outbox.last?.sequence, sequence <= last {
                throw corrupt("\(entryContext).seq: \(sequence) is not above the event before it (\(last))")
            }
            var eventMembers = members.members
            eventMembers.removeAll { $0.key == "seq" || $0.key == "id" }
            let event = try event(.object(eventMembers), at: entryContext, monitor: snapshot.name, identifier: identifier)
            snapshot.outbox.append(GeofenceDelivery(sequence: sequence, event: event))
            snapshot.nextEventSequence = max(snapshot.nextEventSequence, sequence + 1)
        }
    }

    private func condition(_ value: JSONValue, at context: String, monitor: String, version: Int)
        throws(GeofenceError) -> MonitoredCondition
    {
        var names: Set = ["id", "serial", "region", "state", "lastEvent", "pending", "accuracyLimitReported", "added"]
        if version >= MonitorFileFormat.titleVersion { names.insert("title") }
        let members = try object(value, at: context, allowing: names, version: version)
        let identifier = try members.string("id")
        guard !identifier.isEmpty else { throw corrupt("\(context).id: expected a non-empty string") }
        let region: GeofenceCondition
        do {
            region = try GeofenceCondition(geoJSONGeometry: try members.required("region"))
        } catch {
            guard case .invalidGeometry(let reason) = error else { throw error }
            throw corrupt("\(context).region: \(reason)")
        }
        let lastEvent = try members.optional("lastEvent") { value, key throws(GeofenceError) in
            try event(value, at: "\(context).\(key)", monitor: monitor, identifier: identifier)
        }
        let pending = try members.optional("pending") { value, key throws(GeofenceError) in
            let pending = try object(value, at: "\(context).\(key)", allowing: ["state", "since"])
            return PendingChange(state: try pending.heldState("state"), since: try pending.time(try pending.required("since"), "since"))
        }
        return MonitoredCondition(
            identifier: identifier, serial: try members.integer("serial", minimum: 1), condition: region,
            state: try members.heldState("state"), lastEvent: lastEvent, pending: pending,
            accuracyLimitReported: try members.flag("accuracyLimitReported"),
            added: try members.optional("added") { value, key throws(GeofenceError) in try members.time(value, key) },
            title: try members.optional("title") { value, key throws(GeofenceError) in
                guard let title = value.stringValue, !title.isEmpty else { throw members.mistyped(key, "a non-empty string") }
                return title
            })
    }

    func event(_ value: JSONValue, at context: String, monitor: String, identifier: String) throws(GeofenceError) -> GeofenceEvent {
        let members = try object(value, at: context, allowing: ["state", "previous", "time", "lat", "lon", "eph", "accuracyLimited"])
        guard let state = GeofenceState(rawValue: try members.string("state")) else { throw members.mistyped("state", "a state") }
        let previous = try members.optional("previous") { value, key throws(GeofenceError) in
            guard let text = value.stringValue, let previous = GeofenceState(rawValue: text) else {
                throw members.mistyped(key, "a state")
            }
            return previous
        } ?? .unknown
        var fix: Fix?
        if members.optional("time") != nil || members.optional("lat") != nil || members.optional("lon") != nil {
            let time = try members.time(try members.required("time"), "time")
            let latitude = try members.number("lat"), longitude = try members.number("lon")
            guard (try? GeoPoint(latitude: latitude, longitude: longitude)) != nil else {
                throw corrupt("\(context): the position \(latitude),\(longitude) is out of range")
            }
            let eph = try members.optional("eph") { value, key throws(GeofenceError) in
                guard let eph = value.doubleValue, eph >= 0 else { throw members.mistyped(key, "a number of metres") }
                return eph
            }
            fix = Fix(time: time, mode: .twoD, latitude: latitude, longitude: longitude, horizontalError: eph)
        } else if members.optional("eph") != nil {
            throw corrupt("\(context): \"eph\" without \"time\", \"lat\" and \"lon\"")
        }
        return GeofenceEvent(monitor: monitor, identifier: identifier, state: state, previousState: previous, fix: fix,
                             accuracyLimited: try members.flag("accuracyLimited"))
    }

    /// - Parameter version: the file's version, named when a member is unknown in it.
    func object(_ value: JSONValue, at context: String, allowing names: Set<String>, version: Int = MonitorFileFormat.version)
        throws(GeofenceError) -> StoredObject
    {
        guard let members = value.objectValue else {
            throw corrupt("\(context.isEmpty ? "" : context + ": ")expected an object, found \(value.kindDescription)")
        }
        let object = StoredObject(members: members, context: context, decoder: self)
        if let unknown = members.first(where: { !names.contains($0.key) }) {
            throw object.corrupt(unknown.key, "unknown member in version \(version)")
        }
        return object
    }

    func corrupt(_ reason: String) -> GeofenceError {
        .corruptStateFile(path: path, reason: reason)
    }
}
