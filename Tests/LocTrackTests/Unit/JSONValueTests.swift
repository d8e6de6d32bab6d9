import LocTrackTestSupport
@testable import LocTrack
import Testing

@Suite("JSON values: strict RFC 8259 reading and compact writing", .timeLimit(.minutes(1)))
struct JSONValueTests {
    static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try JSONValue(parsing: Array(text.utf8))
    }

    static func syntaxError(_ bytes: [UInt8]) -> JSONSyntaxError? {
        do {
            _ = try JSONValue(parsing: bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test("given a nested document with whitespace when parsed then values, types and member order are kept")
    func parsesNestedDocument() throws {
        let value = try Self.parse(" \n{\"b\": [1, -2.5, 3e2, true, false, null], \"a\": {\"x\": \"y\"}, \"c\": []}\t\r\n")
        #expect(value == .object([
            JSONMember("b", [1, -2.5, 300, true, false, .null]),
            JSONMember("a", ["x": "y"]),
            JSONMember("c", []),
        ]))
        #expect(value.objectValue?.map(\.key) == ["b", "a", "c"])
        #expect(value["a"]?["x"]?.stringValue == "y")
        #expect(value["b"]?.arrayValue?[2].doubleValue == 300)
        #expect(value["b"]?.arrayValue?[3].boolValue == true)
        #expect(value["missing"] == nil)
        #expect(value["b"]?["x"] == nil)
    }

    @Test("given string escapes and a surrogate pair when parsed then they decode to the characters")
    func decodesEscapes() throws {
        let value = try Self.parse(#""q\" b\\ s\/ \b\f\n\r\t \u00e9 \uD83D\uDE00 \u0000""#)
        #expect(value == .string("q\" b\\ s/ \u{08}\u{0C}\n\r\t é 😀 \u{00}"))
        #expect(try Self.parse("\"héllo 😀\"") == .string("héllo 😀"))
    }

    @Test("given numbers of every form in the grammar when parsed then they have their exact values",
          arguments: [("0", 0.0), ("-0", -0.0), ("7", 7), ("-12", -12), ("0.5", 0.5), ("1e3", 1000),
                      ("1E-2", 0.01), ("2.5e+1", 25), ("9007199254740993", 9_007_199_254_740_992),
                      ("1e-400", 0), ("123456789.125", 123_456_789.125)])
    func parsesNumbers(text: String, expected: Double) throws {
        #expect(try Self.parse(text) == .number(expected))
    }

    @Test("given invalid JSON when parsed then the error names the byte offset and what was expected",
          arguments: [
            ("", 0, "expected a value, found the end of the text"),
            ("[1,]", 3, "expected a value after ',', found ']' (a trailing comma is not JSON)"),
            ("{\"a\":1,}", 7, "expected a member name in double quotes after ',', found '}' (a trailing comma is not JSON)"),
            ("{\"a\" 1}", 5, "expected ':' after the member name, found '1'"),
            ("{\"a\":1,\"a\":2}", 7, "duplicate member name \"a\" in one object"),
            ("[1 2]", 3, "expected ',' or ']' after an array element, found '2'"),
            ("{\"a\":1 \"b\":2}", 7, "expected ',' or '}' after an object member, found '\"'"),
            ("01", 1, "expected no digits after a leading zero, found '1'"),
            ("1.", 2, "expected a digit after '.' in a number, found the end of the text"),
            ("-", 1, "expected a digit after a number's sign, found the end of the text"),
            ("1e+", 3, "expected a digit after a number's exponent, found the end of the text"),
            (".5", 0, "expected a value, found '.'"),
            ("1e400", 0, "expected a number within the range of a Double, found 1e400"),
            ("tru", 3, "expected 'true', found the end of the text"),
            ("nul!", 3, "expected 'null', found '!'"),
            ("NaN", 0, "expected a value, found 'N'"),
            ("{'a':1}", 1, "expected a member name in double quotes, found '''"),
            ("[1] x", 4, "expected the end of the text after the value, found 'x'"),
            ("\"a\u{01}\"", 2, "expected control characters in a string to be escaped, found byte 0x01"),
            ("\"a\nb\"", 2, "expected control characters in a string to be escaped, found byte 0x0A"),
            ("\"abc", 4, "expected '\"' to end the string that starts at byte 0, found the end of the text"),
            ("\"\\x\"", 2, "expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u after '\\', found 'x'"),
            ("\"\\u12G4\"", 5, "expected 4 hexadecimal digits after \\u, found 'G'"),
            ("\"\\uD83D\"", 1, "expected a \\uDC00-\\uDFFF low surrogate after the high surrogate \\uD83D"),
            ("\"\\uD83D\\u0041\"", 7, "expected a \\uDC00-\\uDFFF low surrogate after \\uD83D, found \\u0041"),
            ("\"\\uDE00\"", 1, "expected a high surrogate before the low surrogate \\uDE00"),
            ("\u{FEFF}{}", 0, "expected a value, found byte 0xEF"),
          ])
    func rejectsInvalid(text: String, offset: Int, reason: String) {
        let error = Self.syntaxError(Array(text.utf8))
        #expect(error == JSONSyntaxError(offset: offset, reason: reason))
        #expect(error?.description == "invalid JSON at byte \(offset): \(reason)")
    }

    @Test("given bytes that are not UTF-8 inside a string when parsed then the string's offset is reported")
    func rejectsInvalidUTF8() {
        #expect(Self.syntaxError([0x5B, 0x22, 0xC3, 0x28, 0x22, 0x5D])
                == JSONSyntaxError(offset: 1, reason: "expected UTF-8 in the string, found invalid bytes"))
        #expect(Self.syntaxError([0x22, 0xED, 0xA0, 0x80, 0x22]) != nil)  // an encoded surrogate
    }

    @Test("given 512 nested arrays when parsed then they are read, and 513 are refused at the 513th")
    func depthLimit() throws {
        let deepest = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        var value = try Self.parse(deepest)
        var depth = 0
        while let inner = value.arrayValue {
            depth += 1
            value = inner.first ?? .null
        }
        #expect(depth == 512)
        // Objects count too: 256 × `{"a":[` is 512 levels, the 257th `{` (at byte 1536) is one too many.
        let tooDeep = String(repeating: "{\"a\":[", count: 257)
        #expect(Self.syntaxError(Array(tooDeep.utf8))
                == JSONSyntaxError(offset: 1536, reason: "expected at most 512 nested arrays and objects"))
        let error = Self.syntaxError(Array((String(repeating: "[", count: 513) + String(repeating: "]", count: 513)).utf8))
        #expect(error == JSONSyntaxError(offset: 512, reason: "expected at most 512 nested arrays and objects"))
    }

    @Test("given values when serialized then the text is compact, ordered and escaped as RFC 8259 requires")
    func serializes() {
        let value: JSONValue = ["z": 1, "a": [true, false, .null], "s": .string("q\"\\/\n\r\t\u{08}\u{0C}\u{01}\u{1F}\u{7F}é😀")]
        #expect(value.serialized == #"{"z":1,"a":[true,false,null],"s":"q\"\\/\n\r\t\u0008\u000c\u0001\u001f"# + "\u{7F}é😀\"}")
    }

    @Test("given numbers when serialized then whole ones within 2^53 have no fraction and others round-trip",
          arguments: [(3.0, "3"), (-0.0, "0"), (-42, "-42"), (0.1, "0.1"), (-0.5, "-0.5"), (1e20, "1e+20"),
                      (9_007_199_254_740_992, "9007199254740992"), (18_014_398_509_481_984, "1.8014398509481984e+16"),
                      (1e-7, "1e-07"), (52.520008, "52.520008"), (Double.leastNonzeroMagnitude, "5e-324")])
    func serializesNumbers(number: Double, text: String) throws {
        #expect(JSONValue.number(number).serialized == text)
        #expect(try Self.parse(text) == .number(number))
    }

    @Test("given random finite doubles when serialized and parsed then each comes back bit for bit")
    func numbersRoundTrip() throws {
        var random = SplitMix64(seed: 0x1005_7AC7)
        for _ in 0..<2000 {
            let number = Double(bitPattern: random.next())
            guard number.isFinite else { continue }
            let back = try Self.parse(JSONValue.number(number).serialized).doubleValue
            #expect(back == number, "\(number)")
        }
    }

    @Test("given mutated documents when parsed then nothing traps, and what parses serializes and parses to itself")
    func mutatedInputsNeverCrash() throws {
        let corpus = [
            #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"id":"a"},"geometry":{"type":"Polygon","coordinates":[[[1,2],[3,4.5e1],[5,-6],[1,2]]]}}]}"#,
            #"{"loctrack":"monitor","version":1,"s":"\u00e9\uD83D\uDE00\n","n":[-0.0,1E+2,true,false,null,{}]}"#,
            "[[[[[[[[[[[[\"deep\"]]]]]]]]]]]]",
        ].map { Array($0.utf8) }
        let alphabet = Array(#"{}[]",:\-.0e9u"#.utf8)
        var random = SplitMix64(seed: 42)
        var parsed = 0
        for iteration in 0..<6000 {
            var bytes = corpus[iteration % corpus.count]
            for _ in 0...(random.next() % 4) {
                let index = Int(random.next() % UInt64(bytes.count + 1))
                switch random.next() % 5 {
                case 0 where index < bytes.count: bytes[index] = UInt8(truncatingIfNeeded: random.next())
                case 1: bytes.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: index)
                case 2 where index < bytes.count: bytes.remove(at: index)
                case 3: bytes = Array(bytes.prefix(index))
                default: bytes.insert(contentsOf: bytes[index...].prefix(8), at: index)
                }
            }
            guard let value = try? JSONValue(parsing: bytes) else { continue }
            parsed += 1
            #expect(try JSONValue(parsing: Array(value.serialized.utf8)) == value)
        }
        #expect(parsed > 100)  // the mutations also produce valid JSON, whose writing is checked
    }
}
