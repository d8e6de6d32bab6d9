/// gpsd commands, built by loctrack itself.
///
/// libgps's `gps_stream` formats `?WATCH` in an 80-byte buffer, which cuts a
/// long `/dev/serial/by-id/…` path into invalid JSON and still returns 0.
package enum GPSDCommand {
    /// `?WATCH={"enable":true,"json":true[,"device":"…"]};`
    static func watch(device: String?) -> String {
        guard let device else { return "?WATCH={\"enable\":true,\"json\":true};\n" }
        return "?WATCH={\"enable\":true,\"json\":true,\"device\":\"\(jsonEscaped(device))\"};\n"
    }

    /// Stops the watch before closing, so gpsd can release the device promptly.
    static let unwatch = "?WATCH={\"enable\":false};\n"

    /// Asks gpsd for the latest fix of every watched device.
    static let poll = "?POLL;\n"

    /// `text` as the inside of a JSON string literal (RFC 8259 §7: quote, backslash and the
    /// control characters escaped). loctrack's one JSON escaper: also used for its output
    /// lines and, through `JSONValue.serialized`, the monitor's state file.
    package static func jsonEscaped(_ text: String) -> String {
        // Device paths, names and ids need no escaping: the text as it is, with no copy
        // (the line encoder calls this for every fix's device).
        if !text.utf8.contains(where: { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 }) { return text }
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
