/// An attribution as plain text. MBTiles' `attribution` is often HTML (`<a href=…>©
/// OpenStreetMap</a>`); the page shows it as text, never as HTML, so the server hands it
/// over readable: tags dropped, the common entities decoded, blanks collapsed, cut to
/// ``longest`` bytes at a character's end.
public enum AttributionText {
    public static let longest = 500

    private static let named: [Substring: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ", "copy": "©", "reg": "®",
        "trade": "™", "ndash": "–", "mdash": "—",
    ]

    public static func plain(_ html: String) -> String {
        var text = ""
        var rest = Substring(html)
        while let first = rest.first {
            if first == "<", let close = rest.firstIndex(of: ">") {
                // A tag, or a comment: nothing of it is text. A break between words stays one.
                text.append(" ")
                rest = rest[rest.index(after: close)...]
            } else if first == "&", let semicolon = rest.prefix(12).firstIndex(of: ";"),
                      let decoded = entity(rest[rest.index(after: rest.startIndex)..<semicolon]) {
                text.append(decoded)
                rest = rest[rest.index(after: semicolon)...]
            } else {
                text.append(first.isWhitespace || first.unicodeScalars.allSatisfy({ $0.properties.generalCategory == .control })
                            ? " " : first)
                rest = rest.dropFirst()
            }
        }
        let collapsed = text.split(whereSeparator: { $0 == " " }).joined(separator: " ")
        var cut = ""
        for character in collapsed {
            guard cut.utf8.count + character.utf8.count <= longest else { break }
            cut.append(character)
        }
        return cut
    }

    /// `amp`, `#169` or `#xA9` decoded; nil when it is none of these.
    private static func entity(_ name: Substring) -> String? {
        if let text = named[name] { return text }
        guard name.hasPrefix("#") else { return nil }
        let digits = name.dropFirst()
        let value = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
        guard let value, let scalar = Unicode.Scalar(value), scalar.properties.generalCategory != .control else { return nil }
        return String(Character(scalar))
    }
}
