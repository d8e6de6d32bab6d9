import CLibXML2
import LocTrack

/// Reads GPX with libxml2's SAX2 parser: every `<trkpt>` of every track, loctrack's
/// (`stream --format gpx`, `--output x.gpx`) and other programs' (GPSLogger, OsmAnd,
/// Garmin…). Route points (`<rtept>`) and waypoints (`<wpt>`) are no track: left out.
/// What each point takes from its elements is ``GPXPointWalk``'s.
///
/// XML is not read past a well-formedness error: every point before it is kept (SAX reports
/// each element as it is parsed), and the error is where the file was cut (on its last line)
/// or corrupt (before).
enum GPXReader {
    /// How much libxml2 is handed at a time.
    static let chunkSize = 64 * 1024

    static func read(_ bytes: [UInt8]) -> TrackFileReading {
        let file = RecordedBytes(bytes)
        let walk = GPXPointWalk()
        guard file.contents.count <= Int(Int32.max) else {
            walk.reading.skipUnreadable(RecordProblem("byte \(Int32.max)", "a GPX file of 2 GiB or more, which libxml2 does not read"))
            return walk.reading
        }
        xmlInitParser()
        var handler = xmlSAXHandler()
        handler.initialized = loctrack_xml_sax2_magic
        // Each callback's context is the walk (the user data below), which outlives the parser.
        handler.startElementNs = { context, name, _, namespace, _, _, attributeCount, _, attributes in
            guard let context, let name else { return }
            GPXPointWalk.from(context).start(name, namespace: namespace, attributeCount: Int(attributeCount), attributes: attributes)
        }
        handler.endElementNs = { context, _, _, _ in
            guard let context else { return }
            GPXPointWalk.from(context).end()
        }
        handler.characters = { context, text, count in
            guard let context, let text else { return }
            GPXPointWalk.from(context).characters(text, count: Int(count))
        }
        handler.cdataBlock = handler.characters
        handler.serror = { context, error in
            guard let context, let error else { return }
            GPXPointWalk.from(context).note(error.pointee)
        }
        file.contents.withUnsafeBytes { buffer in
            let text = buffer.bindMemory(to: CChar.self)
            // The first bytes tell libxml2 the encoding; the rest follow a chunk at a time, as a
            // push parser is fed (in one chunk, a file over 10 MB would exceed libxml2's limit
            // on what it looks ahead through: "Huge input lookup").
            let head = min(4, text.count)
            guard let parser = xmlCreatePushParserCtxt(
                &handler, Unmanaged.passUnretained(walk).toOpaque(), text.baseAddress, Int32(head), nil)
            else {
                walk.reading.skipUnreadable(RecordProblem("line 1", "libxml2 could not start reading it"))
                return
            }
            defer { xmlFreeParserCtxt(parser) }
            // No network and no entities substituted: nothing but the bytes given is read.
            xmlCtxtUseOptions(parser, Int32(XML_PARSE_NONET.rawValue))
            walk.parser = parser
            var offset = head
            repeat {
                let count = min(Self.chunkSize, text.count - offset)
                let last = offset + count == text.count
                // After a fatal error libxml2 takes the rest without reading it; an error it
                // recovers from (an undeclared namespace prefix) does not stop it.
                _ = xmlParseChunk(parser, text.baseAddress.map { $0 + offset }, Int32(count), last ? 1 : 0)
                offset += count
            } while offset < text.count
            walk.parser = nil
        }
        if let error = walk.error { report(error, lineCount: file.lineCount, into: &walk.reading) }
        if let zeros = file.zerosProblem(afterLine: file.lineCount + 1), walk.reading.cutShort == nil {
            walk.reading.cutShort = zeros
        }
        return walk.reading
    }

    /// The error that stopped the parser: where the file was cut when it is on its last
    /// line, else a corrupt part (nothing after it can be read).
    private static func report(_ error: GPXPointWalk.ParseError, lineCount: Int, into reading: inout TrackFileReading) {
        let line = error.line ?? lineCount
        var location = "line \(line)"
        if let column = error.column { location += ", column \(column)" }
        if line >= lineCount {
            reading.cutShort = RecordProblem(location, error.message)
        } else {
            reading.stoppedAt = RecordProblem(location, error.message)
        }
    }
}
