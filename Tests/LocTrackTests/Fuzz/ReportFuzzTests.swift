import LocTrackTestSupport
import Foundation
@testable import LocTrack
@testable import LocTrackCLI
import Synchronization
import Testing
@testable import LocTrackFormats
@testable import LocTrackSinks

/// Mutated gpsd reports through the whole parsing and fix path: framing, class
/// detection, libgps's parser, the epoch merger and the JSON writer.
///
/// `make test` runs 100,000 mutations of a built-in corpus with a fixed seed;
/// `make fuzz` runs more, over ../shared/gpsd-logs/*.gpsd.jsonl
/// (LOCTRACK_FUZZ_ITERATIONS, LOCTRACK_FUZZ_CORPUS, LOCTRACK_FUZZ_SEED).
@Suite("Fuzzing the report path", .timeLimit(.minutes(30)))
struct ReportFuzzTests {
    static let builtInCorpus = [
        #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#,
        #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/pts/5","activated":"2026-11-22T04:25:02.819Z","native":0,"bps":4800,"parity":"N","stopbits":1,"cycle":1.00}]}"#,
        #"{"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}"#,
        #"{"class":"TPV","device":"/dev/pts/8","mode":3,"time":"2034-08-16T03:07:19.000Z","ept":0.005,"lat":-37.784788333,"lon":175.314896667,"altHAE":83.6000,"altMSL":59.9000,"alt":59.9000,"epv":34.500,"track":181.3900,"magtrack":201.9320,"magvar":20.5,"speed":0.355,"geoidSep":23.700,"eph":20.900,"sep":34.200}"#,
        #"{"class":"TPV","device":"/dev/pts/5","status":2,"mode":3,"time":"2017-07-19T08:50:01.000Z","leapseconds":18,"ept":0.005,"lat":-34.906226600,"lon":138.608119900,"altHAE":25.3780,"altMSL":28.8490,"alt":28.8490,"epv":1.603,"track":31.4718,"magtrack":39.3946,"magvar":7.9,"speed":0.016,"climb":-0.230,"eps":0.17,"epc":16.02,"geoidSep":-1.662,"eph":1.133}"#,
        #"{"class":"TPV","device":"/dev/pts/9","mode":3,"time":"2024-03-28T15:14:05.000Z","ept":0.005,"lat":46.404648618,"lon":-117.020462010,"altHAE":232.9577,"altMSL":248.3082,"alt":248.3082,"track":94.0052,"magtrack":107.8568,"magvar":13.9,"speed":0.440,"climb":0.002,"eps":1.05,"ecefx":-2001691.12,"ecefy":-3925074.05,"ecefz":4596546.66,"ecefvx":0.38,"ecefvy":-0.22,"ecefvz":-0.02,"ecefpAcc":24.63,"ecefvAcc":1.05,"velN":-0.031,"velE":0.438,"velD":-0.002,"geoidSep":-15.351}"#,
        #"{"class":"TPV","device":"/dev/pts/7","mode":2,"time":"2026-01-01T00:00:01.000Z","lat":47.7035,"lon":12.0125}"#,
        #"{"class":"TPV","device":"/dev/pts/5","mode":1}"#,
        #"{"class":"SKY","device":"/dev/pts/5","vdop":1.50,"hdop":1.10,"pdop":1.80,"nSat":2,"uSat":1,"satellites":[{"PRN":2,"el":15.0,"az":123.0,"ss":0.0,"used":false,"gnssid":0,"svid":2},{"PRN":5,"el":45.0,"az":347.0,"ss":45.0,"used":true,"gnssid":0,"svid":5}]}"#,
        #"{"class":"DEVICE","path":"/dev/pts/5","activated":0}"#,
        #"{"class":"POLL","time":"2026-11-22T05:29:04.487Z","active":1,"tpv":[{"class":"TPV","device":"/dev/pts/1","mode":3,"time":"2026-11-22T05:29:04.000Z","lat":-37.784788333,"lon":175.314896667,"eph":20.900}],"gst":[{"class":"GST","device":"/dev/pts/1"}],"sky":[]}"#,
        #"{"class":"GST","device":"/dev/pts/7","time":"2016-04-07T17:31:21.000Z","rms":1.400,"major":2.800,"minor":1.800,"orient":0.0,"lat":2.500,"lon":2.300,"alt":4.700}"#,
    ]

    /// Words a mutation may splice in: wrong types, absurd and special values.
    static let nasties = [
        #""abc""#, "NaN", "nan", "1e999", "-1e999", "123", "-91", "181", "1e-320", "[1,2,[3]]", "{}", "null", "true",
        #""1980-01-06T00:00:00.000Z""#, #""2026-13-45T99:99:99.000Z""#, "\"\u{1}\"", "99999999999999999999", "-0",
        #""lat":123"#, #""mode":3"#, #""time":"#, "\\u0000", "\"", ",", ":", "}", "{",
    ]

    static let environment = ProcessInfo.processInfo.environment

    @Test("given 100,000 mutated reports when processed then nothing crashes and every fix is valid JSON in range",
          .timeLimit(.minutes(2)))
    func fuzz() async throws {
        try await Self.fuzz(corpus: Self.builtInCorpus, iterations: 100_000, seed: 0x10C7_7AC4)
    }

    @Test("given mutated real gpsd captures when processed then nothing crashes and every fix is valid JSON in range",
          .enabled(if: environment["LOCTRACK_FUZZ_CORPUS"] != nil, "make fuzz sets LOCTRACK_FUZZ_CORPUS"),
          .timeLimit(.minutes(30)))
    func fuzzCaptures() async throws {
        let directory = Self.environment["LOCTRACK_FUZZ_CORPUS"] ?? ""
        try await Self.fuzz(
            corpus: Self.builtInCorpus + Self.lines(inCapturesUnder: directory),
            iterations: Self.environment["LOCTRACK_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 1_000_000,
            seed: Self.environment["LOCTRACK_FUZZ_SEED"].flatMap(UInt64.init) ?? 1)
    }

    static func fuzz(corpus: [String], iterations: Int, seed: UInt64) async throws {
        let summary = try await Self.run(corpus: corpus, iterations: iterations, seed: seed)
        // The unmutated corpus alone must produce fixes, or the check below proves nothing.
        #expect(summary.fixes > 100)
        #expect(summary.linesWritten == summary.fixes)
        print("fuzz: \(iterations) mutations, seed \(seed), \(summary.fixes) fixes written and checked, \(summary.skipped) reports skipped")
    }

    struct Summary {
        var fixes = 0
        var linesWritten = 0
        var skipped = 0
    }

    /// Yields every 256 mutations: the test runs on Swift's cooperative pool, one thread
    /// per core, beside every other test, and would otherwise hold a thread for seconds.
    static func run(corpus: [String], iterations: Int, seed: UInt64) async throws -> Summary {
        let fixes = Mutex<[Fix]>([])
        let skipped = Atomic<Int>(0)
        let sink: @Sendable (ReaderEvent) -> Void = { event in
            switch event {
            case .fix(let fix): fixes.withLock { $0.append(fix) }
            case .polled(let polled, _): fixes.withLock { $0.append(contentsOf: polled) }
            case .status(.skippedReport): skipped.add(1, ordering: .relaxed)
            default: break
            }
        }
        // SKY read too, so that its decoding (libgps, then SkyView) meets the mutations.
        let handler = ReportHandler(source: .default, assembler: FixAssembler(sink: sink), reportsSatellites: true, sink: sink)
        var framer = LineFramer()
        var random = SplitMix64(seed: seed)
        var summary = Summary()
        let corpusBytes = corpus.map { Array($0.utf8) }
        for iteration in 0..<iterations {
            if iteration % 256 == 0 { await Task.yield() }
            var line = corpusBytes[Int(random.next() % UInt64(corpusBytes.count))]
            if iteration % 10 != 0 {  // keep one in ten intact so fixes keep flowing
                mutate(&line, corpus: corpusBytes, random: &random)
            }
            line.removeAll { $0 == 0x0A }
            line.append(0x0A)
            if let trace = environment["LOCTRACK_FUZZ_TRACE"] {  // to find the line a hang is stuck on
                _ = FileManager.default.createFile(atPath: trace, contents: Data(line))
            }
            framer.append(line) { text, length in handler.handle(line: text, length: length) }
            try check(fixes.withLock { drained in defer { drained = [] }; return drained }, into: &summary)
        }
        handler.assembler.flush()
        try check(fixes.withLock { $0 }, into: &summary)
        summary.skipped = skipped.load(ordering: .relaxed)
        return summary
    }

    static func check(_ fixes: [Fix], into summary: inout Summary) throws {
        for fix in fixes {
            summary.fixes += 1
            let line = OutputFormat.json.line(for: fix)
            #expect(line.hasSuffix("}\n") && line.filter { $0 == "\n" }.count == 1)
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            let latitude = object?["lat"] as? Double
            let longitude = object?["lon"] as? Double
            #expect(latitude.map { (-90.0...90.0).contains($0) } == true, "lat out of range in \(line)")
            #expect(longitude.map { (-180.0...180.0).contains($0) } == true, "lon out of range in \(line)")
            #expect(!line.contains("nan") && !line.contains("inf") && !line.contains("null"))
            summary.linesWritten += 1
        }
    }

    static func mutate(_ line: inout [UInt8], corpus: [[UInt8]], random: inout SplitMix64) {
        for _ in 0..<(1 + Int(random.next() % 3)) {
            guard !line.isEmpty else { return }
            let position = Int(random.next() % UInt64(line.count))
            switch random.next() % 6 {
            case 0:  // flip a bit
                line[position] ^= UInt8(1 << (random.next() % 8))
            case 1:  // truncate
                line.removeSubrange(position...)
            case 2:  // splice another report's tail
                let other = corpus[Int(random.next() % UInt64(corpus.count))]
                let from = Int(random.next() % UInt64(other.count))
                line.replaceSubrange(position..., with: other[from...])
            case 3:  // a nasty value after the next colon
                if let colon = line[position...].firstIndex(of: 0x3A) {
                    let end = line[(colon + 1)...].firstIndex { $0 == 0x2C || $0 == 0x7D } ?? line.count
                    let nasty = nasties[Int(random.next() % UInt64(nasties.count))]
                    line.replaceSubrange((colon + 1)..<end, with: Array(nasty.utf8))
                }
            case 4:  // random bytes
                line.insert(contentsOf: (0..<(1 + random.next() % 8)).map { _ in UInt8(truncatingIfNeeded: random.next()) }, at: position)
            default:  // duplicate a stretch
                let end = min(line.count, position + Int(random.next() % 40))
                line.insert(contentsOf: line[position..<end], at: position)
            }
        }
    }

    static func lines(inCapturesUnder directory: String) throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".gpsd.jsonl") }
        return try names.sorted().flatMap { name in
            // The captures end lines with CRLF, which Swift treats as one Character: split on either.
            try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
                .split(whereSeparator: \.isNewline).map(String.init)
        }
    }
}
