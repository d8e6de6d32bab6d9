extension JSONValue {
    /// Compact JSON text: no whitespace, members in order, strings escaped as RFC 8259
    /// requires (quote, backslash, control characters) and nothing more.
    ///
    /// Whole numbers within ±2^53 are written without a fraction (`3`, not `3.0`), so
    /// serials and counts read naturally; other numbers use Swift's shortest description
    /// that reads back to the same `Double`. A non-finite number is a programming error
    /// (JSON cannot hold it) and traps.
    package var serialized: String {
        var text = ""
        write(to: &text)
        return text
    }

    private func write(to text: inout String) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .number(let value): text += Self.numberText(value)
        case .string(let value): Self.writeString(value, to: &text)
        case .array(let elements):
            text += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { text += "," }
                element.write(to: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { text += "," }
                Self.writeString(member.key, to: &text)
                text += ":"
                member.value.write(to: &text)
            }
            text += "}"
        }
    }

    package static func numberText(_ value: Double) -> String {
        precondition(value.isFinite, "JSON cannot hold the number \(value)")
        if value == value.rounded(), abs(value) <= largestExactInteger {
            return String(Int64(value))
        }
        return value.description
    }

    /// One escaper for all of loctrack's JSON: gpsd's commands, the output lines, the state file.
    private static func writeString(_ value: String, to text: inout String) {
        text += "\""
        text += JSONText.escaped(value)
        text += "\""
    }
}
