import LocTrackSystem
/// What loctrack does with each complete line from gpsd: classify it from the
/// raw text, parse only what is needed with libgps, assemble fixes, and note
/// what is worth reporting. No I/O: the reader feeds it lines (and so do tests).
final class ReportHandler {
    private let decoder = ReportDecoder()
    let assembler: FixAssembler
    private let sink: (consuming ReaderEvent) -> Void
    let source: GPSDSource
    /// Whether to read SKY reports into ``SkyView``s (otherwise SKY is skipped unread).
    let reportsSatellites: Bool

    /// Whether gpsd's VERSION banner arrived on the current connection.
    private(set) var sawBanner = false
    /// An ERROR reply: the watch was refused (e.g. an unknown device).
    private(set) var refusal: LocTrackError?
    /// Devices whose latest TPV had a fix, so each loss of fix is reported once.
    /// A small array, not a `Set`: it is touched on every fix, and a search over a
    /// device or two runs less code than hashing (see ``DeviceTable``).
    private var devicesWithFix: [String] = []
    /// Devices gpsd said it lost, so each loss is reported once.
    private var lostDevices: Set<String> = []
    /// When the last fix arrived (monotonic milliseconds), if any did.
    private(set) var lastFixAt: Int64?

    init(
        source: GPSDSource, assembler: FixAssembler, reportsSatellites: Bool = false,
        sink: @escaping (consuming ReaderEvent) -> Void
    ) {
        self.source = source
        self.reportsSatellites = reportsSatellites
        self.assembler = assembler
        self.sink = sink
    }

    /// A new connection starts: it has to greet us again.
    func connectionStarted() {
        sawBanner = false
        refusal = nil
    }

    func handle(line: UnsafeMutablePointer<CChar>, length lineLength: Int) {
        var length = lineLength
        var reportClass = ReportClass(line: line, length: length)
        if reportClass == .notAReport || line[length - 1] != 0x7D {  // not gpsd's `{"class":"…",…}`
            // Valid JSON in another layout (spaces, the class later) is read as gpsd's own.
            guard let compactLength = CompactReport.rewrite(line, length: length) else {
                malformed(line, length, why: reportClass == .notAReport ? "not a gpsd report" : "truncated report")
                return
            }
            length = compactLength
            reportClass = ReportClass(line: line, length: length)
            if reportClass == .notAReport {  // a `"class"` that is not a string
                malformed(line, length, why: "not a gpsd report")
                return
            }
        }
        if reportClass == .other { return }  // a report loctrack has no use for (GST, RAW, …)
        if reportClass == .unknown {
            malformed(line, length, why: "unknown report class")
            return
        }
        if reportClass != .poll && reportClass != .sky && reportClass != .devices {
            guard let flatLength = FlatReport.flatten(line, length: length) else {
                malformed(line, length, why: "not a well-formed JSON object")
                return
            }
            length = flatLength
        }
        switch reportClass {
        case .tpv:
            let report = decoder.decodeTPV(line: line)
            if report.fix == nil && report.mode != 1 && Self.mentionsPosition(line, length) {
                sink(.status(.skippedReport(reason: "TPV without a usable position or time", excerpt: Self.excerpt(line, length))))
            }
            if report.fix != nil { lastFixAt = Monotonic.milliseconds }
            assembler.accept(report)
            let device = report.device ?? ""
            if report.fix != nil {
                if devicesWithFix.count >= EpochMerger.maximumDevices { devicesWithFix.removeAll() }
                if !devicesWithFix.contains(device) { devicesWithFix.append(device) }
            } else if report.mode < 2, let index = devicesWithFix.firstIndex(of: device) {
                devicesWithFix.remove(at: index)
                sink(.status(.fixLost(device: report.device)))
            }
        case .version:
            sawBanner = true
            sink(.status(.connected(source, release: decoder.decodeVersionRelease(line: line))))
        case .error:
            refusal = LocTrackError(.gpsdError, source: source, reason: decoder.decodeErrorMessage(line: line))
        case .sky:
            // Read with loctrack's own JSON parser, not libgps's (see SkyView(report:)).
            if reportsSatellites {
                guard let report = try? JSONValue(parsing: UnsafeRawBufferPointer(start: line, count: length)),
                      let view = SkyView(report: report)
                else {
                    malformed(line, length, why: "not a well-formed JSON object")
                    return
                }
                sink(.sky(view))
            }
        case .poll:
            // One per request: whitespace after a compact start is taken out here.
            length = CompactReport.rewrite(line, length: length) ?? length
            let reply = PollReply(line: UnsafeRawBufferPointer(start: line, count: length))
            var fixes: [Fix] = []
            for range in reply.tpvObjects {
                withUnsafeTemporaryAllocation(of: CChar.self, capacity: range.count + 1) { object in
                    let base = object.baseAddress!
                    UnsafeMutableRawPointer(base).copyMemory(from: line + range.lowerBound, byteCount: range.count)
                    base[range.count] = 0
                    if FlatReport.flatten(base, length: range.count) != nil, let fix = decoder.decodeTPV(line: base).fix {
                        fixes.append(fix)
                    }
                }
            }
            sink(.polled(fixes, gpsdTime: reply.time))
        case .device:
            // libgps 3.22 cannot parse `"activated":0` (a device gpsd lost), so read the raw text.
            guard let path = Self.stringValue(of: "path", in: line, length) else { break }
            if Self.contains(line, length, "\"activated\":0") {
                if lostDevices.count >= EpochMerger.maximumDevices { lostDevices.removeAll() }
                if lostDevices.insert(path).inserted { sink(.status(.deviceLost(path))) }
            } else {
                lostDevices.remove(path)
            }
        default:
            break
        }
    }

    /// Counts a line that could not be used at all.
    func malformed(_ line: UnsafePointer<CChar>, _ length: Int, why: String) {
        sink(.status(.skippedReport(reason: why, excerpt: Self.excerpt(line, length))))
    }

    static func excerpt(_ line: UnsafePointer<CChar>, _ length: Int) -> String {
        let shown = min(length, 80)
        let text = String(decoding: UnsafeRawBufferPointer(start: line, count: shown), as: UTF8.self)
        return shown < length ? text + "…" : text
    }

    private static func mentionsPosition(_ line: UnsafePointer<CChar>, _ length: Int) -> Bool {
        contains(line, length, "\"lat\":") || contains(line, length, "\"lon\":")
    }

    static func contains(_ line: UnsafePointer<CChar>, _ length: Int, _ needle: StaticString) -> Bool {
        needle.withUTF8Buffer { offset(of: Array($0), in: line, length) } != nil
    }

    /// The string value of `"key":"…"` in a flat report, its escapes (`\/` of some
    /// gpsd clones, `\"`) decoded as libgps decodes a TPV's device.
    static func stringValue(of key: String, in line: UnsafePointer<CChar>, _ length: Int) -> String? {
        let bytes = UnsafeRawBufferPointer(start: line, count: length)
        guard let start = offset(of: Array("\"\(key)\":\"".utf8), in: line, length) else { return nil }
        var end = start
        var hasEscapes = false
        while end < length, bytes[end] != 0x22 {
            if bytes[end] == 0x5C {
                hasEscapes = true
                end += 1  // the escaped byte, which may be a quote
            }
            end += 1
        }
        guard end < length else { return nil }
        if !hasEscapes { return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self) }
        return (try? JSONValue(parsing: UnsafeRawBufferPointer(rebasing: bytes[(start - 1)...end])))?.stringValue
    }

    private static func offset(of needle: [UInt8], in line: UnsafePointer<CChar>, _ length: Int) -> Int? {
        ByteSearch.offset(after: needle, in: UnsafeRawBufferPointer(start: line, count: length))
    }
}
