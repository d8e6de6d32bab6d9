/// Text inside JSON string literals: loctrack's one JSON escaper, for gpsd's commands, its
/// output lines (fixes, events, OwnTracks) and, through ``JSONValue/serialized``, the
/// monitor's state file.
package enum JSONText {
    /// `text` as the inside of a JSON string literal (RFC 8259 §7: quote, backslash and the
    /// control characters escaped, nothing more).
    package static func escaped(_ text: String) -> String {
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
