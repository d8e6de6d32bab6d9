@testable import LocTrackCLI
import LocTrack
import LocTrackMQTT
import Testing
@testable import LocTrackFormats
@testable import LocTrackSinks

@Suite("Recording: file name patterns, frames and formats", .timeLimit(.minutes(1)))
struct RecordingPiecesTests {
    @Test("given a pattern with strftime fields when filled from a UTC time then the fields are that time's")
    func patternNames() throws {
        let pattern = try TrackPathPattern("tracks/%Y/%m/%d-%H%M%S.gpx")
        #expect(pattern.rotates)
        // 2026-03-01T23:59:59Z and one second later.
        #expect(pattern.fileName(utcSeconds: 1_772_409_599) == "tracks/2026/03/01-235959.gpx")
        #expect(pattern.fileName(utcSeconds: 1_772_409_600) == "tracks/2026/03/02-000000.gpx")
        #expect(try TrackPathPattern("t/%F.csv").fileName(utcSeconds: 0) == "t/1970-01-01.csv")
        let plain = try TrackPathPattern("100%%.json")
        #expect(!plain.rotates)
        #expect(plain.fileName(utcSeconds: 0) == "100%.json")
    }

    @Test("given unusable patterns when parsed then each is refused", arguments: ["", "tracks/", "a%Z.gpx", "%a.gpx", "trailing%"])
    func badPatterns(text: String) {
        #expect(throws: TrackPathPattern.Invalid.self) { try TrackPathPattern(text) }
    }

    @Test("given frames when decoded from bytes cut anywhere then only whole frames come out, in order")
    func frames() {
        var output = OutputBytes()
        RecordFrame.append(seconds: 1_772_359_200, startsSegment: false, into: &output) { $0.append("first\n") }
        RecordFrame.append(seconds: -5, startsSegment: true, into: &output) { $0.append("") }
        RecordFrame.append(seconds: 7, startsSegment: false, into: &output) { $0.append("third line\n") }
        let bytes = output.bytes
        let whole = RecordFrame.decode(bytes[...])
        #expect(whole.consumed == bytes.count)
        #expect(whole.frames.map(\.seconds) == [1_772_359_200, -5, 7])
        #expect(whole.frames.map(\.startsSegment) == [false, true, false])
        #expect(whole.frames.map { String(decoding: $0.payload, as: UTF8.self) } == ["first\n", "", "third line\n"])
        for cut in 0..<bytes.count {
            let part = RecordFrame.decode(bytes[..<cut])
            let expected = [0, 19, 32, 56].filter { $0 <= cut }.count - 1
            #expect(part.frames.count == expected, "cut at \(cut)")
        }
    }

    @Test("given --output file names without --format then the format follows the extension")
    func formatFromName() {
        #expect(OutputFormat(fileName: "tracks/%Y-%m-%d.gpx") == .gpx)
        #expect(OutputFormat(fileName: "a.CSV") == .csv)
        #expect(OutputFormat(fileName: "a.geojson") == .geojson)
        #expect(OutputFormat(fileName: "a.txt") == .text)
        #expect(OutputFormat(fileName: "a.jsonl") == .json)
        #expect(OutputFormat(fileName: "dir.gpx/track") == .json)
    }

    @Test("given --output names with and without a format's extension when --format is given then only names without one take it")
    func formatOption() {
        #expect(OutputFormat(fileName: "t/%F.gpx", otherwise: .owntracks) == .gpx)
        #expect(OutputFormat(fileName: "t/%F.CSV", otherwise: .json) == .csv)
        #expect(OutputFormat(fileName: "t/%F.json", otherwise: .owntracks) == .owntracks)
        #expect(OutputFormat(fileName: "t/%F", otherwise: .geojson) == .geojson)
        #expect(OutputFormat(fileName: "t/%F.jsonl", otherwise: nil) == .json)
    }

    @Test("given --output and --sync when parsed then stream and monitor run get them; misuse is a usage error")
    func parsing() throws {
        let stream = try Command(arguments: ["stream", "--output", "t/%F.gpx", "--sync", "0"])
        #expect(stream == .stream(.init(records: [RecordOptions(path: try TrackPathPattern("t/%F.gpx"), syncSeconds: 0)])))
        let run = try Command(arguments: ["monitor", "run", "-o", "events.json"])
        guard case .monitor(.run(let options)) = run else {
            Issue.record("not monitor run: \(run)")
            return
        }
        #expect(options.records == [RecordOptions(path: try TrackPathPattern("events.json"), syncSeconds: 0)], "monitor run syncs each batch of events")
        #expect(throws: UsageError.needs("--sync", what: "--output")) { try Command(arguments: ["stream", "--sync", "1"]) }
        #expect(throws: UsageError.duplicateOutput("t/%F.gpx")) {
            try Command(arguments: ["stream", "--output", "t/%F.gpx", "-o", "t/%F.gpx"])
        }
        #expect(throws: UsageError.self) { try Command(arguments: ["stream", "--output", "a%Q"]) }
        #expect(throws: UsageError.self) { try Command(arguments: ["stream", "--output", "a.gpx", "--sync", "-1"]) }
    }

    @Test("given several --output and one --sync when parsed then each file gets the --sync, in the order given")
    func severalOutputs() throws {
        let parsed = try Command(arguments: ["stream", "-o", "t/%F.gpx", "--sync", "2", "--output", "t/%F.csv"])
        #expect(parsed == .stream(.init(records: [
            RecordOptions(path: try TrackPathPattern("t/%F.gpx"), syncSeconds: 2),
            RecordOptions(path: try TrackPathPattern("t/%F.csv"), syncSeconds: 2),
        ])))
    }

    @Test("given --output with --publish when parsed then both sinks are kept")
    func outputWithPublish() throws {
        let parsed = try Command(arguments: ["stream", "--output", "a.json", "--publish", "mqtt://h/t"])
        #expect(parsed == .stream(.init(
            publishes: [.init(broker: try BrokerURL(parsing: "mqtt://h/t"))],
            records: [RecordOptions(path: try TrackPathPattern("a.json"))])))
    }
}
