import CLibXML2
import LocTrack
import LocTrackFormats

/// The SAX events of one GPX document, turned into points.
///
/// A point takes `lat` and `lon` from its attributes, its time from its `<time>`, its speed
/// (m/s) from a `<speed>` (GPX 1.0 has one in the point; GPX 1.1 programs put one in
/// `<extensions>`: OsmAnd's `osmand:speed`, Garmin's `gpxtpx:speed`), its error estimate
/// from loctrack's own `<loctrack:eph>` extension (other programs' `<hdop>` is a dilution,
/// not metres: not used). A point with `<fix>none</fix>` is no position.
///
/// A class because libxml2 calls back with a pointer to it; used on one thread, by one parse.
final class GPXPointWalk {
    /// What stopped the parser (warnings and errors it recovered from are not kept).
    struct ParseError {
        var message: String
        var line: Int?
        var column: Int?
    }

    /// The point being read: its depth, line and what it said so far.
    private struct PointInProgress {
        var depth: Int
        var line: Int
        var latitude: String?
        var longitude: String?
        var time: String?
        var speed: String?
        var horizontalError: String?
        var fix: String?
    }

    private enum Field { case time, speed, horizontalError, fix }

    var reading = TrackFileReading(format: .gpx)
    private(set) var error: ParseError?
    /// The parser, while it runs: for the line of each point.
    var parser: xmlParserCtxtPtr?

    private var depth = 0
    private var point: PointInProgress?
    private var capture: (field: Field, depth: Int, text: [UInt8])?
    /// The points' times, read with the last date's midnight kept (a track's points share their date).
    private var times = RecordedTime.Reader()

    static func from(_ context: UnsafeMutableRawPointer) -> GPXPointWalk {
        Unmanaged<GPXPointWalk>.fromOpaque(context).takeUnretainedValue()
    }

    /// `attributes` holds five pointers per attribute: local name, prefix, namespace, and the
    /// value's start and end (libxml2's SAX2 `startElementNs`).
    func start(
        _ name: UnsafePointer<xmlChar>, namespace: UnsafePointer<xmlChar>?, attributeCount: Int,
        attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    ) {
        depth += 1
        guard let current = point else {
            guard equals(name, "trkpt") else { return }
            var started = PointInProgress(depth: depth, line: parser.map { Int(xmlSAX2GetLineNumber($0)) } ?? 0)
            for index in 0..<attributeCount {
                guard let attributes, let local = attributes[5 * index], let start = attributes[5 * index + 3],
                      let end = attributes[5 * index + 4]
                else { continue }
                let value = String(decoding: UnsafeBufferPointer(start: start, count: end - start), as: UTF8.self)
                if equals(local, "lat") { started.latitude = value } else if equals(local, "lon") { started.longitude = value }
            }
            point = started
            return
        }
        guard capture == nil, let field = field(name, namespace: namespace, relativeDepth: depth - current.depth, of: current) else {
            return
        }
        capture = (field, depth, [])
    }

    func end() {
        defer { depth -= 1 }
        if let captured = capture, captured.depth == depth {
            store(String(decoding: captured.text, as: UTF8.self), as: captured.field)
            capture = nil
        } else if let finished = point, finished.depth == depth {
            point = nil
            capture = nil
            reading.take(outcome(of: finished), at: "line \(finished.line)")
        }
    }

    func characters(_ text: UnsafePointer<xmlChar>, count: Int) {
        guard capture != nil else { return }
        capture!.text.append(contentsOf: UnsafeBufferPointer(start: text, count: count))
    }

    func note(_ error: xmlError) {
        // Fatal: not well-formed, the parser stops. Errors it goes on after (an undeclared
        // namespace prefix, which some programs write in <extensions>) and warnings are no
        // problem of the track's.
        guard error.level == XML_ERR_FATAL else { return }
        let message = error.message.map { String(cString: $0) } ?? "not well-formed XML"
        // libxml2's messages end in a newline; a message line must not.
        self.error = ParseError(
            message: message.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).joined(separator: " ").trimmingBlanks(),
            line: error.line > 0 ? Int(error.line) : nil, column: error.int2 > 0 ? Int(error.int2) : nil)
    }

    /// Which field a child element of the point gives, `relativeDepth` below it: `<time>` and
    /// `<fix>` as the point's own children, a speed anywhere in it (extensions nest), an
    /// error estimate only as loctrack's. The first of each counts.
    private func field(
        _ name: UnsafePointer<xmlChar>, namespace: UnsafePointer<xmlChar>?, relativeDepth: Int, of current: PointInProgress
    ) -> Field? {
        if relativeDepth == 1, current.time == nil, equals(name, "time") { return .time }
        if relativeDepth == 1, current.fix == nil, equals(name, "fix") { return .fix }
        if current.speed == nil, equals(name, "speed") { return .speed }
        if current.horizontalError == nil, equals(name, "eph"), let namespace, equals(namespace, GPXEncoder.extensionNamespace) {
            return .horizontalError
        }
        return nil
    }

    private func store(_ text: String, as field: Field) {
        switch field {
        case .time: point?.time = text
        case .speed: point?.speed = text
        case .horizontalError: point?.horizontalError = text
        case .fix: point?.fix = text
        }
    }

    private func outcome(of point: PointInProgress) -> RecordOutcome {
        if point.fix?.trimmingBlanks() == "none" { return .notAPosition }
        guard let latitudeText = point.latitude, let longitudeText = point.longitude else {
            return .unreadable("a trkpt without lat and lon")
        }
        guard let latitude = decimalNumber(latitudeText) else { return .unreadable("lat \"\(latitudeText.prefix(40))\" is not a number") }
        guard let longitude = decimalNumber(longitudeText) else {
            return .unreadable("lon \"\(longitudeText.prefix(40))\" is not a number")
        }
        guard let timeText = point.time else { return .unreadable("a trkpt without a <time>") }
        guard let time = times.timestamp(timeText) else {
            return .unreadable("time \"\(timeText.trimmingBlanks().prefix(40))\" is not an ISO 8601 time")
        }
        return .checked(
            time: time, latitude: latitude, longitude: longitude, speed: point.speed.flatMap(decimalNumber),
            horizontalError: point.horizontalError.flatMap(decimalNumber), device: nil)
    }

    /// Whether the NUL-terminated `text` is `expected`, without making a String of it.
    private func equals(_ text: UnsafePointer<xmlChar>, _ expected: StaticString) -> Bool {
        expected.withUTF8Buffer { bytes in
            for (index, byte) in bytes.enumerated() where text[index] != byte { return false }
            return text[bytes.count] == 0
        }
    }

    private func equals(_ text: UnsafePointer<xmlChar>, _ expected: String) -> Bool {
        var index = 0
        for byte in expected.utf8 {
            guard text[index] == byte else { return false }
            index += 1
        }
        return text[index] == 0
    }
}
