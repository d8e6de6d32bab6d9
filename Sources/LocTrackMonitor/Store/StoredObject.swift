import LocTrack

/// One object of a state file, read member by member; errors name the member's path.
struct StoredObject {
    let members: [JSONMember]
    /// Where the object is, e.g. `conditions[2].lastEvent`; empty at the top.
    let context: String
    let decoder: MonitorFileDecoder

    func optional(_ key: String) -> JSONValue? {
        members.first { $0.key == key }?.value
    }

    func optional<Value>(_ key: String, _ read: (JSONValue, String) throws(GeofenceError) -> Value) throws(GeofenceError) -> Value? {
        guard let value = optional(key) else { return nil }
        return try read(value, key)
    }

    func required(_ key: String) throws(GeofenceError) -> JSONValue {
        guard let value = optional(key) else {
            throw decoder.corrupt("\(context.isEmpty ? "" : context + ": ")missing member \"\(key)\"")
        }
        return value
    }

    func string(_ key: String) throws(GeofenceError) -> String {
        guard let text = try required(key).stringValue else { throw mistyped(key, "a string") }
        return text
    }

    func number(_ key: String) throws(GeofenceError) -> Double {
        guard let number = try required(key).doubleValue else { throw mistyped(key, "a number") }
        return number
    }

    func integer(_ key: String, minimum: Int) throws(GeofenceError) -> Int {
        guard let integer = try required(key).integerValue, integer >= minimum else {
            throw mistyped(key, "a whole number of at least \(minimum)")
        }
        return integer
    }

    /// An optional boolean, false when absent.
    func flag(_ key: String) throws(GeofenceError) -> Bool {
        guard let value = optional(key) else { return false }
        guard let flag = value.boolValue else { throw mistyped(key, "true or false") }
        return flag
    }

    func time(_ value: JSONValue, _ key: String) throws(GeofenceError) -> Timestamp {
        guard let text = value.stringValue, let time = Timestamp(iso8601: text) else {
            throw mistyped(key, "an ISO 8601 UTC time")
        }
        return time
    }

    /// `unknown`, `satisfied` or `unsatisfied`: the states a held condition can be in.
    func heldState(_ key: String) throws(GeofenceError) -> GeofenceState {
        guard let state = GeofenceState(rawValue: try string(key)), state != .unmonitored else {
            throw mistyped(key, "\"unknown\", \"satisfied\" or \"unsatisfied\"")
        }
        return state
    }

    func mistyped(_ key: String, _ expected: String) -> GeofenceError {
        let found = optional(key).map { value in
            value.stringValue != nil || value.doubleValue != nil ? value.serialized : value.kindDescription
        } ?? "nothing"
        return corrupt(key, "expected \(expected), found \(found)")
    }

    func corrupt(_ key: String, _ reason: String) -> GeofenceError {
        decoder.corrupt("\(context.isEmpty ? "" : context + ".")\(key): \(reason)")
    }
}
