@testable import LocTrack
import Synchronization
import Testing

/// Reports that are valid JSON but not in gpsd's compact layout (issue 35): whitespace,
/// the class later, exponents, escapes, unknown and `null` members. Each must give
/// exactly what gpsd's compact form of the same report gives.
@Suite("Reports in another JSON layout", .timeLimit(.minutes(1)))
struct ReportLayoutTests {
    /// What the reader made of `lines`, as comparable values (the held epoch flushed at the end).
    enum Outcome: Equatable {
        case fix(Fix), polled([Fix]), sky(SkyView), status(GPSDStatus)
    }

    static func read(_ lines: [String]) -> [Outcome] {
        let events = Mutex<[Outcome]>([])
        let sink: @Sendable (ReaderEvent) -> Void = { event in
            let outcome: Outcome? = switch event {
            case .fix(let fix): .fix(fix)
            case .polled(let fixes, _): .polled(fixes)
            case .sky(let view): .sky(view)
            case .status(let status): .status(status)
            default: nil
            }
            if let outcome { events.withLock { $0.append(outcome) } }
        }
        let handler = ReportHandler(
            source: .default, assembler: FixAssembler(sink: sink), reportsSatellites: true, sink: sink)
        var framer = LineFramer()
        for line in lines {
            framer.append(Array((line + "\r\n").utf8)) { text, length in handler.handle(line: text, length: length) }
        }
        handler.assembler.flush()
        return events.withLock { $0 }
    }

    /// The ways a server may lay out the same JSON.
    enum Layout: String, CaseIterable, CustomTestStringConvertible {
        case spaceAfterPunctuation, tabs, spacesEverywhere, classLast, spacedAndClassLast

        var testDescription: String { rawValue }

        /// `compact` (gpsd's own line) laid out this way; strings are left alone.
        func apply(_ compact: String) -> String {
            switch self {
            case .spaceAfterPunctuation: Self.respace(compact) { "\($0) " }
            case .tabs: Self.respace(compact) { "\($0)\t" }
            case .spacesEverywhere: "  " + Self.respace(compact) { " \($0)  " } + " \t"
            case .classLast: Self.classLast(compact)
            case .spacedAndClassLast: Self.respace(Self.classLast(compact)) { " \($0) " }
            }
        }

        private static func respace(_ text: String, around: (Character) -> String) -> String {
            var result = ""
            var inString = false
            var escaped = false
            for character in text {
                if inString {
                    if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
                    result.append(character)
                } else if character == "\"" {
                    inString = true
                    result.append(character)
                } else if ":,{}[]".contains(character) {
                    result += around(character)
                } else {
                    result.append(character)
                }
            }
            return result
        }

        /// The `"class":"…"` member moved to the end of the top-level object.
        private static func classLast(_ compact: String) -> String {
            guard let member = compact.firstMatch(of: /^\{("class":"[A-Z0-9]+"),/) else { return compact }
            let rest = String(compact[member.range.upperBound...].dropLast())
            return "{" + rest + "," + String(member.1) + "}"
        }
    }

    /// A short drive as gpsd writes it: banner, DEVICES, WATCH, DEVICE, 2D and 3D TPVs,
    /// SKY, a lost fix, the device lost, and a POLL reply.
    static let compactSession: [String] = {
        var lines = [
            #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#,
        ]
        lines += Reports.preamble()
        lines += [Reports.tpv(0), Reports.tpv(1, mode: 2), Reports.tpv(2)]
        lines.append(SkyDecodingTests.full)
        lines += [Reports.tpv(3), Reports.noFix(), Reports.deviceLine(activated: false)]
        lines.append(#"{"class":"POLL","time":"2025-01-01T00:00:09.000Z","active":1,"tpv":[\#(Reports.tpv(4))],"gst":[],"sky":[]}"#)
        return lines
    }()

    @Test("given gpsd's compact session when read then it gives its fixes, SKY, statuses and POLL")
    func compactBaseline() {
        let outcomes = Self.read(Self.compactSession)
        #expect(outcomes.contains(.fix(Reports.fix(0))))
        #expect(outcomes.contains(.fix(Reports.fix(2))))
        #expect(outcomes.contains { if case .sky = $0 { true } else { false } })
        #expect(outcomes.contains(.status(.deviceLost(Reports.device))))
        #expect(outcomes.contains(.polled([Reports.fix(4)])))
        #expect(!outcomes.contains { if case .status(.skippedReport) = $0 { true } else { false } }, "\(outcomes)")
    }

    @Test("given the same session in another JSON layout when read then everything is exactly as from the compact form",
          arguments: Layout.allCases)
    func sameValues(layout: Layout) {
        let expected = Self.read(Self.compactSession)
        let actual = Self.read(Self.compactSession.map(layout.apply))
        #expect(actual == expected)
    }

    @Test("given TPVs with exponents, escaped device paths, unknown members, null members or members in another order when read then the fix is the compact one's",
          arguments: [
            #"{"class":"TPV","device":"/dev/ttyACM0","status":2,"mode":3,"time":"2025-01-01T00:00:05.000Z","ept":5e-1,"lat":3.8578125E1,"lon":-122.5390625,"altHAE":53.5,"altMSL":8.325e+1,"alt":83.25,"epv":3.0,"epx":1.0,"epy":1.5,"track":44.125,"magtrack":57.5,"magvar":13.5,"speed":15e-1,"eps":2.0,"geoidSep":-29.75,"eph":2.75,"sep":5.0}"#,
            #"{"class":"TPV","device":"\/dev\/ttyACM0","status":2,"mode":3,"time":"2025-01-01T00:00:05.000Z","ept":0.5,"lat":38.578125,"lon":-122.5390625,"altHAE":53.5,"altMSL":83.25,"alt":83.25,"epv":3.0,"epx":1.0,"epy":1.5,"track":44.125,"magtrack":57.5,"magvar":13.5,"speed":1.5,"eps":2.0,"geoidSep":-29.75,"eph":2.75,"sep":5.0}"#,
            #"{"class":"TPV","device":"\u002fdev\u002FttyACM0","status":2,"mode":3,"time":"2025-01-01T00:00:05.000Z","ept":0.5,"lat":38.578125,"lon":-122.5390625,"altHAE":53.5,"altMSL":83.25,"alt":83.25,"epv":3.0,"epx":1.0,"epy":1.5,"track":44.125,"magtrack":57.5,"magvar":13.5,"speed":1.5,"eps":2.0,"geoidSep":-29.75,"eph":2.75,"sep":5.0}"#,
            #"{"class":"TPV","device":"/dev/ttyACM0","status":2,"mode":3,"vendor":"x, y: {z}","time":"2025-01-01T00:00:05.000Z","ept":0.5,"lat":38.578125,"lon":-122.5390625,"altHAE":53.5,"altMSL":83.25,"alt":83.25,"epv":3.0,"epx":1.0,"epy":1.5,"track":44.125,"magtrack":57.5,"magvar":13.5,"speed":1.5,"eps":2.0,"geoidSep":-29.75,"eph":2.75,"sep":5.0,"rtk":true,"extra":{"a":[1, 2]}}"#,
            #"{"class":"TPV","device":"/dev/ttyACM0","status":2,"mode":3,"time":"2025-01-01T00:00:05.000Z","ept":0.5,"lat":38.578125,"lon":-122.5390625,"altHAE":53.5,"altMSL":83.25,"alt":83.25,"epv":3.0,"epx":1.0,"epy":1.5,"track":44.125,"magtrack":57.5,"magvar":13.5,"speed":1.5,"eps":2.0,"geoidSep":-29.75,"eph":2.75,"sep":5.0,"climb":null,"epc":null}"#,
            #"{"class":"TPV", "device" : null, "device2": null, "status":2,"mode":3,"time":"2025-01-01T00:00:05.000Z","ept":0.5,"lat":38.578125,"lon":-122.5390625,"altHAE":53.5,"altMSL":83.25,"alt":83.25,"epv":3.0,"epx":1.0,"epy":1.5,"track":44.125,"magtrack":57.5,"magvar":13.5,"speed":1.5,"eps":2.0,"geoidSep":-29.75,"eph":2.75,"sep":5.0, "device":"/dev/ttyACM0"}"#,
            #"{"lat":38.578125,"lon":-122.5390625,"time":"2025-01-01T00:00:05.000Z","mode":3,"status":2,"device":"/dev/ttyACM0","sep":5.0,"eph":2.75,"geoidSep":-29.75,"eps":2.0,"speed":1.5,"magvar":13.5,"magtrack":57.5,"track":44.125,"epy":1.5,"epx":1.0,"epv":3.0,"alt":83.25,"altMSL":83.25,"altHAE":53.5,"ept":0.5,"class":"TPV"}"#,
          ])
    func sameFix(line: String) {
        #expect(Reports.tpv(5) == #"{"class":"TPV","device":"/dev/ttyACM0","status":2,"mode":3,"time":"2025-01-01T00:00:05.000Z","ept":0.5,"lat":38.578125,"lon":-122.5390625,"altHAE":53.5,"altMSL":83.25,"alt":83.25,"epv":3.0,"epx":1.0,"epy":1.5,"track":44.125,"magtrack":57.5,"magvar":13.5,"speed":1.5,"eps":2.0,"geoidSep":-29.75,"eph":2.75,"sep":5.0}"#)
        #expect(Self.read([line]) == [.fix(Reports.fix(5))])
    }

    @Test("given a DEVICE report with an escaped path when the device is lost then the path is decoded",
          arguments: [#"{"class": "DEVICE", "path": "\/dev\/ttyACM0", "activated": 0}"#,
                      #"{"path":"/dev/tty\"ACM0\\","activated":0,"class":"DEVICE"}"#])
    func escapedDevicePath(line: String) {
        let path = line.contains("\\\"") ? #"/dev/tty"ACM0\"# : Reports.device
        #expect(Self.read([line]) == [.status(.deviceLost(path))])
    }

    @Test("given JSON pretty-printed across lines or without a string class when read then each line is skipped as not a gpsd report, not silently",
          arguments: [
            (["{", #"  "class": "TPV","#, #"  "mode": 3"#, "}"], 4),
            ([#"{"class": 3, "mode": 3}"#, #"{"mode": 3}"#, #" {"mode": 3} "#, "[]"], 4),
          ])
    func unreadable(lines: [String], skipped: Int) {
        let outcomes = Self.read(lines)
        #expect(outcomes.count == skipped, "\(outcomes)")
        #expect(outcomes.allSatisfy { if case .status(.skippedReport(reason: "not a gpsd report", _)) = $0 { true } else { false } }, "\(outcomes)")
    }
}

@Suite("Compacting report lines", .timeLimit(.minutes(1)))
struct CompactReportTests {
    static func rewrite(_ text: String) -> String? {
        var bytes = Array(text.utf8CString)
        return bytes.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let length = CompactReport.rewrite(buffer.baseAddress!, length: text.utf8.count) else { return nil }
            #expect(buffer[length] == 0)
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress!, count: length), as: UTF8.self)
        }
    }

    @Test("given valid JSON objects in any layout when rewritten then they are gpsd's compact form, class first, strings untouched",
          arguments: [
            (#"{"class":"TPV","mode":3}"#, #"{"class":"TPV","mode":3}"#),
            (" { \"class\" : \"TPV\" ,\t\"mode\" : 3 } ", #"{"class":"TPV","mode":3}"#),
            (#"{"mode":3,"class":"TPV"}"#, #"{"class":"TPV","mode":3}"#),
            (#"{"a":[1, {"class": "x"}], "device": "/dev/a b", "class": "SKY", "z": {"k": " : "}}"#,
             #"{"class":"SKY","a":[1,{"class":"x"}],"device":"/dev/a b","z":{"k":" : "}}"#),
            (#"{"device":"\"class\":","class":"DEVICE"}"#, #"{"class":"DEVICE","device":"\"class\":"}"#),
          ])
    func rewrites(input: String, output: String) {
        #expect(Self.rewrite(input) == output)
    }

    @Test("given lines that are not one JSON object with a top-level class when rewritten then they are refused",
          arguments: ["", "{", "[]", #"{"mode":3}"#, #"{"class":"TPV""#, #"{"class":"TPV"}}"#, #"{"class":"TPV"} x"#,
                      #"{"a":{"class":"TPV"}}"#, "{\"class\":\"T\u{1}\"}", #"{"class":"TPV"]"#])
    func refuses(input: String) {
        #expect(Self.rewrite(input) == nil)
    }
}
