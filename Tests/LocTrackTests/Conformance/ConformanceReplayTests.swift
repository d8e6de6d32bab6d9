import Foundation
@testable import LocTrack
@testable import LocTrackCLI
import LocTrackTestSupport
import Testing
import LocTrackSystem
@testable import LocTrackFormats
@testable import LocTrackSinks

/// The conformance rule over a scripted gpsd, in process: a capture of gpsd 3.22's JSON
/// output for a real receiver (`NAME.log.gpsd.jsonl`) is replayed through a scripted
/// gpsd (`Support/SocketpairGPSD.swift`) into a ``GPSDSession``, and every fix must be
/// gpsd's epoch exactly: one fix per (device, time) among the TPVs with mode ≥ 2,
/// lat, lon and time, with the values of gpsd's last TPV of that epoch, nothing
/// from mode < 2, nothing twice, nothing extra, in gpsd's order. Fields are compared
/// as loctrack prints them (`JSONLine`): lat/lon and strings to the last character
/// of gpsd's text, other numbers by value, and no field on one side only.
///
/// Runs over the captures in Fixtures/gpsd-logs, and over every capture in
/// `$LOCTRACK_GPSD_LOGS` when that is set:
/// `LOCTRACK_GPSD_LOGS=../shared/gpsd-logs swift test --filter ConformanceReplay` (make conformance
/// does, then replays the logs through gpsfake into a real gpsd: scripts/conformance.py).
@Suite("Conformance replay: gpsd's captures through a scripted gpsd", .timeLimit(.minutes(5)))
struct ConformanceReplayTests {
    @Test("given a real receiver's gpsd capture when replayed then every fix is gpsd's epoch, exactly", arguments: Capture.all)
    func replay(_ capture: Capture) async throws {
        let expected = try capture.expectedEpochs()
        #expect(!expected.isEmpty, "no epochs in \(capture.name)")

        let gpsd = SocketpairGPSD()
        // The standard timings: a replay that stalls must not end an epoch early by the clock.
        // Only the banner gets longer: on a loaded machine the replay task may start late.
        var timings = ReaderTimings.standard
        timings.banner = .seconds(30)
        let session = GPSDSession(source: GPSDSource(host: "scripted", port: "2947"), reconnectPolicy: .never,
                                  reportsSatellites: false, connector: gpsd, timings: timings)
        var recorder = Recorder(session, session.fixes().events)
        let lines = try capture.replayLines()
        let replay = Task {
            let peer = try await gpsd.peer()
            _ = try await peer.command()  // the capture is what gpsd sent after the ?WATCH
            try await peer.send(lines)
            peer.close()
        }
        try await recorder.readToEnd(within: .seconds(60))
        try await replay.value(within: .seconds(60), "the replay")

        #expect(recorder.failure?.code == .connectionLost, "the stream must end as gpsd hung up: \(String(describing: recorder.failure))")
        let differences = Self.compare(recorder.fixes, with: expected)
        #expect(differences.isEmpty, "\(capture.name): \(differences.count) differences:\n\(differences.prefix(20).joined(separator: "\n"))")
        #expect(recorder.fixes.count == expected.count)
    }

    /// conformance.py's `compare`: each fix against gpsd's last TPV of its epoch.
    static func compare(_ fixes: [Fix], with expected: [Epoch]) -> [String] {
        var differences: [String] = []
        var byKey: [EpochKey: Int] = [:]
        for (index, epoch) in expected.enumerated() { byKey[epoch.key] = index }
        var seen: Set<EpochKey> = []
        var order: [Int] = []
        for fix in fixes {
            let key = EpochKey(device: fix.device ?? "", time: fix.time)
            let label = "\(fix.time.iso8601) \(fix.device ?? "")"
            guard seen.insert(key).inserted else {
                differences.append("\(label): a second fix for this epoch")
                continue
            }
            guard let index = byKey[key] else {
                differences.append("\(label): no such epoch among gpsd's fixes: \(JSONLine.format(fix).dropLast())")
                continue
            }
            order.append(index)
            let want = expected[index].report
            let got = FlatJSON.members(of: JSONLine.format(fix))!
            for name in outputFields + got.keys.filter({ !outputFields.contains($0) && $0 != "stationary" }).sorted() {
                switch (want[name], got[name]) {
                case (nil, nil):
                    continue
                case (let value?, nil):
                    differences.append("\(label) \(name): expected \(value), got (absent)")
                case (nil, let value?):
                    differences.append("\(label) \(name): expected (absent: gpsd did not send it), got \(value)")
                case (.number(let wanted)?, .number(let have)?):
                    if wanted == have { continue }
                    if name == "lat" || name == "lon" || Double(wanted) != Double(have) {
                        differences.append("\(label) \(name): expected \(wanted), got \(have)")
                    }
                case (let wanted?, let have?):
                    if wanted != have { differences.append("\(label) \(name): expected \(wanted), got \(have)") }
                }
            }
        }
        for epoch in expected where !seen.contains(epoch.key) {
            differences.append("\(epoch.key.time.iso8601) \(epoch.key.device): missing (gpsd sent \(epoch.reports) report(s))")
        }
        if order != order.sorted() { differences.append("fixes not in gpsd's order: \(order)") }
        return differences
    }

    /// The fields loctrack's JSON output can carry (gpsd's TPV names), as conformance.py lists them.
    static let outputFields = [
        "class", "device", "status", "mode", "time", "leapseconds", "ept", "lat", "lon", "altHAE", "altMSL",
        "epx", "epy", "epv", "track", "magtrack", "magvar", "speed", "climb", "epd", "eps", "epc",
        "ecefx", "ecefy", "ecefz", "ecefvx", "ecefvy", "ecefvz", "ecefpAcc", "ecefvAcc", "relN", "relE", "relD", "relH", "relL",
        "velN", "velE", "velD", "geoidSep", "eph", "sep", "dgpsAge", "dgpsSta",
    ]
}

struct EpochKey: Hashable {
    let device: String
    let time: Timestamp
}

/// One of gpsd's epochs: its last fix report, and how many reports it had.
struct Epoch {
    let key: EpochKey
    var report: [String: FlatJSON.Value]
    var reports = 1
}

/// A gpsd capture: `NAME.log.gpsd.jsonl`, with `NAME.log.tpv.jsonl` beside it as the
/// reference when it is there (else the capture's own TPVs).
struct Capture: CustomTestStringConvertible, Sendable {
    let name: String
    let path: String

    var testDescription: String { name }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/gpsd-logs").path

    static var all: [Capture] {
        var captures = captures(in: fixtures, label: "")
        if let directory = ProcessInfo.processInfo.environment["LOCTRACK_GPSD_LOGS"], !directory.isEmpty {
            captures += Self.captures(in: directory, label: "$LOCTRACK_GPSD_LOGS/")
        }
        return captures
    }

    static func captures(in directory: String, label: String) -> [Capture] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".log.gpsd.jsonl") }.sorted().map {
            Capture(name: label + String($0.dropLast(".gpsd.jsonl".count)), path: directory + "/" + $0)
        }
    }

    /// The capture's lines, the VERSION banner first (gpsd's own when the capture starts with it).
    func replayLines() throws -> [String] {
        let lines = try Self.lines(of: path)
        return lines.first?.hasPrefix(#"{"class":"VERSION""#) == true ? lines : [Peer.banner] + lines
    }

    /// gpsd's epochs, in the order of their first report (conformance.py's `expected_epochs`).
    func expectedEpochs() throws -> [Epoch] {
        let reference = String(path.dropLast(".gpsd.jsonl".count)) + ".tpv.jsonl"
        let source = FileManager.default.fileExists(atPath: reference) ? reference : path
        var epochs: [Epoch] = []
        var index: [EpochKey: Int] = [:]
        for line in try Self.lines(of: source) where line.contains(#""class":"TPV""#) {
            guard let report = FlatJSON.members(of: line), report["class"] == .string("TPV"),
                  case .number(let mode)? = report["mode"], (Int(mode) ?? 0) >= 2,
                  report["lat"] != nil, report["lon"] != nil,
                  case .string(let timeText)? = report["time"], let time = Timestamp(iso8601: timeText)
            else { continue }
            let device = if case .string(let device)? = report["device"] { device } else { "" }
            let key = EpochKey(device: device, time: time)
            if let existing = index[key] {
                epochs[existing].report = report
                epochs[existing].reports += 1
            } else {
                index[key] = epochs.count
                epochs.append(Epoch(key: key, report: report))
            }
        }
        return epochs
    }

    private static func lines(of path: String) throws -> [String] {
        // gpspipe ends its lines with CRLF, one Character in Swift: split on either.
        try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isNewline).map(String.init)
    }
}

/// The top-level members of a JSON object, numbers kept as their text (as conformance.py's `Num`).
enum FlatJSON {
    enum Value: Equatable, CustomStringConvertible {
        case string(String), number(String), literal(String), nested(String)

        var description: String {
            switch self {
            case .string(let text): "\"\(text)\""
            case .number(let text), .literal(let text), .nested(let text): text
            }
        }
    }

    static func members(of text: String) -> [String: Value]? {
        var bytes = Array(text.utf8)[...]
        func skipSpace() { while let byte = bytes.first, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { bytes.removeFirst() } }
        func take(_ byte: UInt8) -> Bool {
            skipSpace()
            guard bytes.first == byte else { return false }
            bytes.removeFirst()
            return true
        }
        func string() -> String? {
            guard take(0x22) else { return nil }
            var result: [UInt8] = []
            while let byte = bytes.popFirst() {
                if byte == 0x22 { return String(decoding: result, as: UTF8.self) }
                if byte == 0x5C, let escaped = bytes.popFirst() {
                    result += escaped == 0x6E ? [0x0A] : escaped == 0x74 ? [0x09] : [escaped]
                } else {
                    result.append(byte)
                }
            }
            return nil
        }
        func nested() -> String? {
            var depth = 0
            var inString = false
            var escaped = false
            var raw: [UInt8] = []
            while let byte = bytes.popFirst() {
                raw.append(byte)
                if inString {
                    if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
                    continue
                }
                switch byte {
                case 0x22: inString = true
                case 0x5B, 0x7B: depth += 1
                case 0x5D, 0x7D:
                    depth -= 1
                    if depth == 0 { return String(decoding: raw, as: UTF8.self) }
                default: break
                }
            }
            return nil
        }
        guard take(0x7B) else { return nil }
        var members: [String: Value] = [:]
        if take(0x7D) { return members }
        repeat {
            guard let key = string(), take(0x3A) else { return nil }
            skipSpace()
            switch bytes.first {
            case 0x22:
                guard let value = string() else { return nil }
                members[key] = .string(value)
            case 0x5B, 0x7B:
                guard let value = nested() else { return nil }
                members[key] = .nested(value)
            case let byte?:
                var raw: [UInt8] = []
                var next: UInt8? = byte
                while let current = next, current != 0x2C, current != 0x7D, current != 0x20 {
                    raw.append(current)
                    bytes.removeFirst()
                    next = bytes.first
                }
                let text = String(decoding: raw, as: UTF8.self)
                members[key] = ["true", "false", "null"].contains(text) ? .literal(text) : .number(text)
            case nil:
                return nil
            }
        } while take(0x2C)
        guard take(0x7D) else { return nil }
        skipSpace()
        return bytes.isEmpty ? members : nil
    }
}
