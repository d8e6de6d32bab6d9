import LocTrack

/// The odometer's state file: one line of JSON and a newline,
/// ```
/// {"loctrack":"odometer","version":1,"metres":123456.789,"time":"2026-11-22T04:25:03.240Z"}
/// ```
/// `metres` to the millimetre; `time` is the receiver time of the position the reading was
/// taken at, absent when a user set the value. A reader refuses other versions and
/// members it does not know, rather than dropping them on the next write.
enum OdometerFileFormat {
    static let tag = "odometer"
    static let version = 1

    struct Contents: Equatable {
        var metres: Double
        var time: Timestamp?
    }

    static func encode(_ contents: Contents) -> [UInt8] {
        var members = [
            JSONMember("loctrack", .string(tag)),
            JSONMember("version", .number(Double(version))),
            JSONMember("metres", .number((contents.metres * 1000).rounded() / 1000)),
        ]
        if let time = contents.time { members.append(JSONMember("time", .string(time.iso8601))) }
        return Array((JSONValue.object(members).serialized + "\n").utf8)
    }

    /// - Throws: a description of what is wrong, for ``OdometerStoreError/corruptFile(path:reason:)``.
    static func decode(_ bytes: [UInt8]) throws(CorruptContents) -> Contents {
        let document: JSONValue
        do {
            document = try JSONValue(parsing: bytes)
        } catch {
            throw CorruptContents(reason: error.description)
        }
        guard let members = document.objectValue else {
            throw CorruptContents(reason: "expected a JSON object, found \(document.kindDescription)")
        }
        guard document["loctrack"] == .string(tag) else {
            throw CorruptContents(reason: "expected \"loctrack\":\"\(tag)\"")
        }
        guard document["version"]?.integerValue == version else {
            throw CorruptContents(reason: "expected \"version\":\(version)")
        }
        if let unknown = members.first(where: { !["loctrack", "version", "metres", "time"].contains($0.key) }) {
            throw CorruptContents(reason: "unknown member \"\(unknown.key)\"")
        }
        guard let metres = document["metres"]?.doubleValue, metres >= 0 else {
            throw CorruptContents(reason: "expected \"metres\" to be a number of metres, 0 or more")
        }
        var time: Timestamp?
        if let value = document["time"] {
            guard let text = value.stringValue, let parsed = Timestamp(iso8601: text) else {
                throw CorruptContents(reason: "expected \"time\" to be an ISO 8601 UTC time")
            }
            time = parsed
        }
        return Contents(metres: metres, time: time)
    }

    struct CorruptContents: Error {
        let reason: String
    }
}
