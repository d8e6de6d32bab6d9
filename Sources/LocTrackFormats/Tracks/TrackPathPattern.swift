/// `--output PATH`: a file name that may hold `strftime` fields (`tracks/%Y-%m-%d.gpx`),
/// filled in from each fix's UTC time, so that a new file starts when the name changes.
public struct TrackPathPattern: Equatable, Sendable, CustomStringConvertible {
    /// Why a pattern cannot be used; `expected` completes "expected …" in the usage line.
    public struct Invalid: Error, Equatable {
        public let expected: String
    }

    /// The fields taken: dates, times and week numbers, all from the UTC time. Locale-
    /// dependent names (%a, %b, %c, …) and time zones (%Z, %z) are left out: a file name
    /// must not change with the machine's settings.
    public static let fields: Set<Character> = ["Y", "y", "C", "m", "d", "e", "j", "H", "M", "S", "F", "T",
                                                "G", "g", "V", "U", "W", "u", "w", "s", "%"]

    public let text: String
    /// Whether the name changes with time (any field but `%%`): rotation.
    public let rotates: Bool

    public init(_ text: String) throws(Invalid) {
        guard !text.isEmpty, !text.hasSuffix("/") else { throw Invalid(expected: "a file name") }
        guard !text.utf8.contains(0) else { throw Invalid(expected: "a file name without NUL bytes") }
        var rotates = false
        var characters = text.makeIterator()
        while let character = characters.next() {
            guard character == "%" else { continue }
            guard let field = characters.next(), Self.fields.contains(field) else {
                throw Invalid(expected: "a file name whose % fields are among "
                              + Self.fields.sorted().map { "%\($0)" }.joined(separator: " "))
            }
            if field != "%" { rotates = true }
        }
        self.text = text
        self.rotates = rotates
    }

    public var description: String { text }
}
