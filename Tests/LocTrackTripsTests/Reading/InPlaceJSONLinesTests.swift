import LocTrack
import LocTrackDistance
import LocTrackFormats
@testable import LocTrackRecordedLines
import LocTrackTestSupport
import LocTrackTrackFiles
import Testing

/// The in-place reading of JSON lines (the fast path of `loctrack trips`) against the JSON tree
/// it stands in for: every line, good or damaged, must come to the same point, skip or message.
@Suite("JSON lines read in place", .timeLimit(.minutes(1)))
struct InPlaceJSONLinesTests {
    static let drive = GeneratedDrive()

    /// Lines of every kind a JSON lines file holds, as loctrack's encoders write them, and some
    /// from other programs.
    static let seeds: [String] = {
        let fixes = Array(drive.fixes.prefix(3))
        var lines = [OutputFormat.json, .geojson, .owntracks].flatMap { format in
            Recorded.text(fixes, format).split(separator: "\n").map(String.init)
        }
        lines += [
            #"{"class":"TPV","device":"/dev/ttyUSB0","mode":1,"time":"2026-11-23T08:14:03.000Z"}"#,
            #"{"class":"SKY","device":"/dev/ttyUSB0","nSat":12,"uSat":8}"#,
            #"{"class":"TPV","mode":3,"time":"2026-11-23T09:14:03.5+01:00","lat":-0.5,"lon":1e-3,"speed":-1,"eph":"x"}"#,
            #"{"_type":"location","tst":1795392000,"lat":52.5,"lon":13.4,"vel":36,"acc":5}"#,
            #"{"_type":"lwt","tst":1795392000}"#,
        ]
        return lines
    }()

    /// `serve --track` reads a day of GeoJSON lines at start: the tree would cost 100,000
    /// instructions a line. Each of these must be decided in place, none left to the tree.
    @Test("given loctrack's JSON, GeoJSON and OwnTracks lines and gpsd's SKY when read then each is decided in place")
    func decidedInPlace() {
        let fixes = Array(Self.drive.fixes.prefix(3))
        var lines = [OutputFormat.json, .geojson, .owntracks].flatMap { format in
            Recorded.text(fixes, format).split(separator: "\n").map(String.init)
        }
        lines.append(#"{"class":"SKY","device":"/dev/ttyACM0","nSat":2,"satellites":[{"PRN":1,"el":45.0,"used":true},{"PRN":2,"el":10.0,"used":false}]}"#)
        var records = FlatJSONRecords()
        for line in lines {
            let outcome = Array(line.utf8).withUnsafeBytes { records.outcome(of: $0) }
            #expect(outcome != nil, "\(line)")
        }
    }

    @Test("given loctrack's own JSON, GeoJSON and OwnTracks lines when read in place then the reading is the tree's")
    func recordedLines() {
        for format in [OutputFormat.json, .geojson, .owntracks] {
            let bytes = Recorded.bytes(Self.drive.fixes, format)
            #expect(JSONLinesReader.read(bytes) == JSONLinesReader.read(bytes, inPlace: false))
        }
    }

    @Test("given 20,000 lines damaged at random (bytes changed, inserted, removed, members repeated) when read in place then every outcome and message is the tree's")
    func damagedLines() {
        var random = SplitMix64(seed: 34)
        let alphabet = Array(#"{}[]":,.-+eE0123456789 \tabcdeflnrstuTPVx"#.utf8) + [0x00, 0x1F, 0x5C, 0xC3, 0xFF]
        for _ in 0..<20_000 {
            var line = Array(Self.seeds.randomElement(using: &random)!.utf8)
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let index = Int.random(in: 0..<line.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: line[index] = alphabet.randomElement(using: &random)!
                case 1: line.insert(alphabet.randomElement(using: &random)!, at: index)
                case 2: line.remove(at: index)
                default:
                    // A member again: `"lat":…` repeated is a duplicate name, which is not JSON.
                    if let comma = line[index...].firstIndex(of: 0x2C), let next = line[(comma + 1)...].firstIndex(of: 0x2C) {
                        line.insert(contentsOf: line[comma..<next], at: next)
                    }
                }
                if line.isEmpty { line = [0x7B] }
            }
            let bytes = line + [0x0A]
            let inPlace = JSONLinesReader.read(bytes)
            let tree = JSONLinesReader.read(bytes, inPlace: false)
            #expect(inPlace == tree, "\(String(decoding: line, as: UTF8.self))")
            if inPlace != tree { return }
        }
    }

    @Test("given latitudes, longitudes and speeds of 1 to 19 digits with 0 to 22 decimals when read in place then each is the Double that Double(String) reads")
    func numbers() {
        var random = SplitMix64(seed: 6)
        var lines: [String] = []
        for _ in 0..<5_000 {
            func number(maximumWhole: Int) -> String {
                let decimals = Int.random(in: 0...22, using: &random)
                let digits = Int.random(in: 1...19, using: &random)
                let whole = String(Int.random(in: 0...maximumWhole, using: &random))
                let fraction = String((0..<min(decimals, digits)).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
                let sign = Bool.random(using: &random) ? "-" : ""
                return sign + whole + (fraction.isEmpty ? "" : "." + fraction)
            }
            lines.append(#"{"class":"TPV","mode":3,"time":"2026-11-23T08:14:03.123456789Z","lat":\#(number(maximumWhole: 89)),"#
                + #""lon":\#(number(maximumWhole: 179)),"speed":\#(number(maximumWhole: 1_000_000)),"eph":0.000000000000000000001}"#)
        }
        let bytes = Array(lines.joined(separator: "\n").utf8)
        let inPlace = JSONLinesReader.read(bytes)
        #expect(inPlace.points.count == lines.count)
        #expect(inPlace == JSONLinesReader.read(bytes, inPlace: false))
    }

    @Test("given a line with a name twice, a nested member, an escape or a byte beyond ASCII when read then the duplicate is refused with the tree's message, the rest are points")
    func linesForTheTree() {
        let lines = [
            #"{"class":"TPV","mode":3,"time":"2026-11-23T08:14:03Z","lat":1,"lon":2,"lat":3}"#,
            #"{"class":"TPV","mode":3,"time":"2026-11-23T08:14:03Z","lat":1,"lon":2,"extra":{"a":[1]}}"#,
            #"{"class":"TPV","device":"\/dev\/ttyS0","mode":3,"time":"2026-11-23T08:14:03Z","lat":1,"lon":2}"#,
            #"{"class":"TPV","device":"gnss-é","mode":3,"time":"2026-11-23T08:14:03Z","lat":1,"lon":2}"#,
        ]
        let reading = JSONLinesReader.read(Array((lines.joined(separator: "\n") + "\n").utf8))
        #expect(reading.points.map(\.device) == [nil, "/dev/ttyS0", "gnss-é"])
        #expect(reading.unreadable == 1)
        #expect(reading.firstUnreadable?.reason.contains("duplicate member name \"lat\"") == true)
    }
}
