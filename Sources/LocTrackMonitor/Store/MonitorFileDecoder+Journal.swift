import LocTrack

extension MonitorFileDecoder {
    /// Applies one complete journal line (``MonitorFileFormat``) to `snapshot`: each record
    /// replaces the decided members of the condition with its `id` and `serial`.
    /// - Throws: `.corruptStateFile` for a line that is not a journal line, or a record
    ///   for a condition the snapshot does not hold.
    /// - Parameter slots: each condition's index in `snapshot.conditions`, by identifier.
    func applyDecisions(
        _ bytes: some Collection<UInt8>, lineNumber: Int, to snapshot: inout MonitorSnapshot, slots: [String: Int]
    ) throws(GeofenceError) {
        let context = "line \(lineNumber)"
        let line: JSONValue
        do {
            line = try JSONValue(parsing: bytes)
        } catch {
            throw corrupt("\(context): \(error.description)")
        }
        let top = try object(line, at: context, allowing: ["decisions", "events", "delivered", "lastFixTime"])
        guard let records = try top.required("decisions").arrayValue else { throw top.mistyped("decisions", "an array") }
        if let time = try top.optional("lastFixTime", { value, key throws(GeofenceError) in try top.time(value, key) }) {
            snapshot.lastFixTime = time
        }
        for (index, record) in records.enumerated() {
            let recordContext = "\(context).decisions[\(index)]"
            let members = try object(record, at: recordContext, allowing: ["id", "serial", "state", "lastEvent", "pending", "accuracyLimitReported"])
            let identifier = try members.string("id")
            let serial = try members.integer("serial", minimum: 1)
            guard let slot = slots[identifier], snapshot.conditions[slot].serial == serial else {
                throw corrupt("\(recordContext): no condition \"\(identifier)\" with serial \(serial) in the file")
            }
            snapshot.conditions[slot].state = try members.heldState("state")
            snapshot.conditions[slot].lastEvent = try members.optional("lastEvent") { value, key throws(GeofenceError) in
                try event(value, at: "\(recordContext).\(key)", monitor: snapshot.name, identifier: identifier)
            }
            snapshot.conditions[slot].pending = try members.optional("pending") { value, key throws(GeofenceError) in
                let pending = try object(value, at: "\(recordContext).\(key)", allowing: ["state", "since"])
                return PendingChange(state: try pending.heldState("state"), since: try pending.time(try pending.required("since"), "since"))
            }
            snapshot.conditions[slot].accuracyLimitReported = try members.flag("accuracyLimitReported")
        }
        if let events = top.optional("events") {
            guard let entries = events.arrayValue else { throw top.mistyped("events", "an array") }
            try appendToOutbox(entries, at: "\(context).events", of: &snapshot)
        }
        if top.optional("delivered") != nil {
            snapshot.confirmDeliveries(through: try top.integer("delivered", minimum: 0))
        }
    }
}
