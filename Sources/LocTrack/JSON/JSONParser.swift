extension JSONValue {
    /// Reads exactly one JSON value, with optional whitespace around it (RFC 8259, strictly).
    ///
    /// Rejected: trailing commas, comments, single quotes, leading zeros, `NaN`, a byte
    /// order mark, unescaped control characters in strings, lone UTF-16 surrogates,
    /// invalid UTF-8, numbers beyond `Double`'s range, duplicate member names in one
    /// object (RFC 8259 leaves them undefined; a state file or region with two values for
    /// one name is a mistake), and more than ``JSONParser/maximumDepth`` nested arrays and
    /// objects (so a hostile file cannot exhaust the stack). Never traps, whatever the bytes.
    package init(parsing bytes: some Collection<UInt8>) throws(JSONSyntaxError) {
        var parser = JSONParser(bytes: Array(bytes))
        self = try parser.parseDocument()
    }
}

/// A recursive-descent reader over a byte array; one use per document.
struct JSONParser {
    /// Arrays and objects nested deeper than this are refused.
    static let maximumDepth = 512

    // Internal rather than private: the string reader in JSONParser+Strings.swift uses them.
    let bytes: [UInt8]
    var offset = 0
    private var depth = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func parseDocument() throws(JSONSyntaxError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard offset == bytes.count else { throw failure("expected the end of the text after the value, found \(found)") }
        return value
    }

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        guard offset < bytes.count else { throw failure("expected a value, found the end of the text") }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        default: throw failure("expected a value, found \(found)")
        }
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        try enterContainer()
        skipWhitespace()
        var members: [JSONMember] = []
        var names: Set<String> = []
        if consume(UInt8(ascii: "}")) {
            depth -= 1
            return .object(members)
        }
        while true {
            guard peek == UInt8(ascii: "\"") else {
                let afterComma = members.isEmpty ? "" : " after ','"
                let trailing = peek == UInt8(ascii: "}") ? " (a trailing comma is not JSON)" : ""
                throw failure("expected a member name in double quotes\(afterComma), found \(found)\(trailing)")
            }
            let nameOffset = offset
            let name = try parseString()
            guard names.insert(name).inserted else {
                throw JSONSyntaxError(offset: nameOffset, reason: "duplicate member name \"\(name)\" in one object")
            }
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { throw failure("expected ':' after the member name, found \(found)") }
            skipWhitespace()
            members.append(JSONMember(name, try parseValue()))
            skipWhitespace()
            if consume(UInt8(ascii: "}")) { break }
            guard consume(UInt8(ascii: ",")) else { throw failure("expected ',' or '}' after an object member, found \(found)") }
            skipWhitespace()
        }
        depth -= 1
        return .object(members)
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        try enterContainer()
        skipWhitespace()
        var elements: [JSONValue] = []
        if consume(UInt8(ascii: "]")) {
            depth -= 1
            return .array(elements)
        }
        while true {
            if !elements.isEmpty, peek == UInt8(ascii: "]") {
                throw failure("expected a value after ',', found ']' (a trailing comma is not JSON)")
            }
            elements.append(try parseValue())
            skipWhitespace()
            if consume(UInt8(ascii: "]")) { break }
            guard consume(UInt8(ascii: ",")) else { throw failure("expected ',' or ']' after an array element, found \(found)") }
            skipWhitespace()
        }
        depth -= 1
        return .array(elements)
    }

    /// Consumes the `[` or `{` at `offset`, refusing to nest deeper than ``maximumDepth``.
    private mutating func enterContainer() throws(JSONSyntaxError) {
        depth += 1
        guard depth <= Self.maximumDepth else {
            throw failure("expected at most \(Self.maximumDepth) nested arrays and objects")
        }
        offset += 1
    }

    private mutating func parseLiteral(_ word: String, _ value: JSONValue) throws(JSONSyntaxError) -> JSONValue {
        for byte in word.utf8 {
            guard offset < bytes.count, bytes[offset] == byte else { throw failure("expected '\(word)', found \(found)") }
            offset += 1
        }
        return value
    }

    // MARK: Numbers

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, converted by `Double(String)`
    /// once the grammar has been checked (Swift's conversion is correctly rounded).
    private mutating func parseNumber() throws(JSONSyntaxError) -> Double {
        let start = offset
        _ = consume(UInt8(ascii: "-"))
        if consume(UInt8(ascii: "0")) {
            if isDigit(peek) { throw failure("expected no digits after a leading zero, found \(found)") }
        } else {
            try digits(after: "a number's sign")
        }
        if consume(UInt8(ascii: ".")) { try digits(after: "'.' in a number") }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            try digits(after: "a number's exponent")
        }
        let text = String(decoding: bytes[start..<offset], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw JSONSyntaxError(offset: start, reason: "expected a number within the range of a Double, found \(text)")
        }
        return value
    }

    private mutating func digits(after what: String) throws(JSONSyntaxError) {
        guard isDigit(peek) else { throw failure("expected a digit after \(what), found \(found)") }
        while isDigit(peek) { offset += 1 }
    }

    private func isDigit(_ byte: UInt8?) -> Bool {
        guard let byte else { return false }
        return byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    // MARK: Bytes

    var peek: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    mutating func consume(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        offset += 1
        return true
    }

    private mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { offset += 1 }
    }

    /// The byte at `offset`, for messages: `'x'`, `byte 0x1F`, or `the end of the text`.
    var found: String {
        guard let byte = peek else { return "the end of the text" }
        guard byte >= 0x20, byte < 0x7F else { return "byte 0x\(hex(byte))" }
        return "'\(Character(Unicode.Scalar(byte)))'"
    }

    func failure(_ reason: String) -> JSONSyntaxError {
        JSONSyntaxError(offset: offset, reason: reason)
    }

    func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return byte < 0x10 ? "0" + digits : digits
    }
}
