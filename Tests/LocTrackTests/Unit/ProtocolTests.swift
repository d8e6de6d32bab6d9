@testable import LocTrack
import Glibc
import Testing

@Suite("Line framing and report classes", .timeLimit(.minutes(1)))
struct LineFramerTests {
    static func frame(_ chunks: [String]) -> (lines: [String], pending: Int, overlong: Int) {
        var framer = LineFramer()
        var lines: [String] = []
        for chunk in chunks {
            framer.append(Array(chunk.utf8)) { text, length in
                lines.append(String(cString: text))
                #expect(length == strlen(text))
            }
        }
        return (lines, framer.pendingByteCount, framer.overlongLines)
    }

    @Test("given many reports in one chunk when framed then every line comes out at once")
    func manyLinesInOneChunk() {
        let result = Self.frame(["{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n"])
        #expect(result.lines == ["{\"a\":1}", "{\"b\":2}", "{\"c\":3}"])
        #expect(result.pending == 0)
    }

    @Test("given half a line when framed then nothing comes out until the newline")
    func partialLineWaits() {
        var framer = LineFramer()
        var lines: [String] = []
        framer.append(Array("{\"class\":\"TP".utf8)) { text, _ in lines.append(String(cString: text)) }
        #expect(lines.isEmpty)
        #expect(framer.pendingByteCount == 12)
        framer.append(Array("V\"}\r\n".utf8)) { text, _ in lines.append(String(cString: text)) }
        #expect(lines == ["{\"class\":\"TPV\"}"])
        #expect(framer.pendingByteCount == 0)
    }

    @Test("given a line longer than the buffer when framed then it is dropped and the next line survives")
    func overlongLineDropped() {
        let huge = String(repeating: "x", count: LineFramer.maximumLineLength + 10)
        let result = Self.frame([huge, "\n{\"ok\":true}\n"])
        #expect(result.lines == ["{\"ok\":true}"])
        #expect(result.overlong == 1)
    }

    @Test("given gpsd report prefixes when classified then the class is read without parsing",
          arguments: [
            ("{\"class\":\"TPV\",\"mode\":3}", ReportClass.tpv),
            ("{\"class\":\"SKY\",\"nSat\":4}", .sky),
            ("{\"class\":\"VERSION\",\"release\":\"3.22\"}", .version),
            ("{\"class\":\"ERROR\",\"message\":\"x\"}", .error),
            ("{\"class\":\"DEVICE\",\"path\":\"/dev/x\"}", .device),
            ("{\"class\":\"DEVICES\",\"devices\":[]}", .devices),
            ("{\"class\":\"WATCH\",\"enable\":true}", .watch),
            ("{\"class\":\"POLL\",\"active\":1}", .poll),
            ("{\"class\":\"TPVX\",\"mode\":3}", .unknown),
            ("{\"class\":\"RAW\",\"device\":\"x\"}", .other),
            ("{\"class\":\"TP", .notAReport),
            ("{\"class\":\"GST\",\"rms\":1.4}", .other),
            ("garbage", .notAReport),
            ("", .notAReport),
          ])
    func classes(line: String, expected: ReportClass) {
        let actual = line.withCString { ReportClass(line: $0, length: line.utf8.count) }
        #expect(actual == expected)
    }

    @Test("given a long by-id device path when the WATCH is built then it is complete, escaped JSON")
    func watchCommand() {
        let device = "/dev/serial/by-id/usb-u-blox_AG_-_www.u-blox.com_u-blox_GNSS_receiver-if00-port0"
        #expect(GPSDCommand.watch(device: device) ==
            "?WATCH={\"enable\":true,\"json\":true,\"device\":\"\(device)\"};\n")
        #expect(GPSDCommand.watch(device: nil) == "?WATCH={\"enable\":true,\"json\":true};\n")
        #expect(JSONText.escaped("a\"b\\c\u{1}") == "a\\\"b\\\\c\\u0001")
    }
}

@Suite("Timestamps", .timeLimit(.minutes(1)))
struct TimestampTests {
    @Test("given instants when formatted then they are gpsd's ISO 8601 with milliseconds",
          arguments: [
            (Int64(0), Int32(0), "1970-01-01T00:00:00.000Z"),
            (1_795_321_503, 240_000_000, "2026-11-22T04:25:03.240Z"),
            (951_782_400, 999_999_999, "2000-02-29T00:00:00.999Z"),
            (2_039_310_439, 0, "2034-08-16T03:07:19.000Z"),
            (-1, 0, "1969-12-31T23:59:59.000Z"),
          ])
    func format(seconds: Int64, nanoseconds: Int32, text: String) {
        let time = Timestamp(seconds: seconds, nanoseconds: nanoseconds)
        #expect(time.iso8601 == text)
        #expect(Timestamp(iso8601: text) == Timestamp(seconds: seconds, nanoseconds: nanoseconds / 1_000_000 * 1_000_000))
    }

    @Test("given malformed times when parsed then they are rejected",
          arguments: ["", "2026-11-22", "2026-13-01T00:00:00Z", "2026-11-22T24:00:00.000Z", "2026-11-22T04:25:03.Z", "x026-11-22T04:25:03.000Z"])
    func malformed(text: String) {
        #expect(Timestamp(iso8601: text) == nil)
    }
}

@Suite("Flattening reports for libgps", .timeLimit(.minutes(1)))
struct FlatReportTests {
    static func flatten(_ text: String) -> String? {
        var bytes = Array(text.utf8CString)
        return bytes.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let length = FlatReport.flatten(buffer.baseAddress!, length: text.utf8.count) else { return nil }
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress!, count: length), as: UTF8.self)
        }
    }

    @Test("given reports when flattened then nested and null members and whitespace are gone and the rest is kept byte for byte",
          arguments: [
            (#"{"class":"TPV","mode":3,"lat":1.5}"#, #"{"class":"TPV","mode":3,"lat":1.5}"#),
            (#"{"class":"TPV","a":[{"class":"GST"}],"lat":1.5}"#, #"{"class":"TPV","lat":1.5}"#),
            (#"{"class":"TPV","lat":1.5,"a":{"b":[1,{"c":"}"}]}}"#, #"{"class":"TPV","lat":1.5}"#),
            (#"{"a":[1],"class":"TPV"}"#, #"{"class":"TPV"}"#),
            (#"{"class":"TPV","device":"/dev/[x]{y}\"z"}"#, #"{"class":"TPV","device":"/dev/[x]{y}\"z"}"#),
            (#"{"class":"TPV", "mode" : 3 ,"a": [1], "lat": 1.5e0 }"#, #"{"class":"TPV","mode":3,"lat":1.5e0}"#),
            (#"{"class":"TPV","device":"a b: c","alt":null,"lat":1.5,"nullish":"null"}"#, #"{"class":"TPV","device":"a b: c","lat":1.5,"nullish":"null"}"#),
          ])
    func flattens(input: String, output: String) {
        #expect(Self.flatten(input) == output)
    }

    @Test("given lines that are not one JSON object when flattened then they are refused",
          arguments: [#"{"class":"TPV","lat":1"#, #"{"class":"TPV","x":"abc}"#, #"{"class":"TPV"}}"#,
                      #"{"class":"TPV"} trailing"#, #"["class"]"#, "{", "", #"{"class":"TPV",["class":"GST""#,
                      #"{="class":"TPV"}"#, #"{"class":"TPV","class":"DEVICE","path":"x"}"#, #"{"class":"TPV","lat":}"#, #"{"class":"TPV",,"lat":1}"#, #"{"class":"TPV","lat"1}"#])
    func refuses(input: String) {
        #expect(Self.flatten(input) == nil)
    }
}
