/// Text inside JSON string literals: loctrack's one JSON escaper, for gpsd's commands, its
/// output lines (fixes, events, OwnTracks) and, through ``JSONValue/serialized``, the
/// monitor's state file.
package enum JSONText {
    /// `text` as the inside of a JSON string literal (RFC 8259 §7: quote, backslash and the
    /// control characters escaped, nothing more).
    package static func escaped(_ text: String) -> String {
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
