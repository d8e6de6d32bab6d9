import CLibXML2

/// Reads an XML track file with libxml2's SAX2 push parser: GPX, TCX or KML, told apart by
/// the root element (``XMLDocumentWalk``); what each kind's elements give is its walk's
/// (``GPXPointWalk``, ``TCXPointWalk``, ``KMLTrackWalk``). Another root element is no track.
///
/// XML is not read past a well-formedness error: every point before it is kept (SAX reports
/// each element as it is parsed), and the error is where the file was cut (at its end) or
/// corrupt (before).
enum XMLTrackReader {
    /// How much libxml2 is handed at a time.
    static let chunkSize = 64 * 1024

    static func read(_ bytes: [UInt8]) -> TrackFileReading {
        let file = RecordedBytes(bytes)
        guard file.contents.count <= Int(Int32.max) else {
            return .notATrack("XML of 2 GiB or more, which libxml2 does not read")
        }
        let document = XMLDocumentWalk()
        guard parse(file.contents, into: document) else { return .notATrack("XML that libxml2 could not start reading") }
        guard let kind = document.kind else {
            // Not XML up to its first element, or XML of another kind.
            return document.otherRoot.map { .notATrack("not GPX, TCX or KML (root element <\($0)>)") } ?? TrackFileReading(format: nil)
        }
        var reading = kind.finish(whole: document.error == nil)
        if let error = document.error { report(error, in: file, into: &reading) }
        if let zeros = file.zerosProblem(afterLine: file.lineCount + 1), reading.cutShort == nil, reading.format != nil {
            reading.cutShort = zeros
        }
        return reading
    }

    /// Feeds `contents` to a push parser that calls `document` back; false when libxml2
    /// could not make one.
    private static func parse(_ contents: [UInt8], into document: XMLDocumentWalk) -> Bool {
        xmlInitParser()
        var handler = xmlSAXHandler()
        handler.initialized = loctrack_xml_sax2_magic
        // Each callback's context is the document walk (the user data below), which outlives the parser.
        handler.startElementNs = { context, name, _, namespace, _, _, attributeCount, _, attributes in
            guard let context, let name else { return }
            XMLDocumentWalk.from(context).start(name, namespace: namespace, attributeCount: Int(attributeCount), attributes: attributes)
        }
        handler.endElementNs = { context, _, _, _ in
            guard let context else { return }
            XMLDocumentWalk.from(context).end()
        }
        handler.characters = { context, text, count in
            guard let context, let text else { return }
            XMLDocumentWalk.from(context).characters(text, count: Int(count))
        }
        handler.cdataBlock = handler.characters
        handler.serror = { context, error in
            guard let context, let error else { return }
            XMLDocumentWalk.from(context).note(error.pointee)
        }
        return contents.withUnsafeBytes { buffer in
            let text = buffer.bindMemory(to: CChar.self)
            // The first bytes tell libxml2 the encoding; the rest follow a chunk at a time, as a
            // push parser is fed (in one chunk, a file over 10 MB would exceed libxml2's limit
            // on what it looks ahead through: "Huge input lookup").
            let head = min(4, text.count)
            guard let parser = xmlCreatePushParserCtxt(
                &handler, Unmanaged.passUnretained(document).toOpaque(), text.baseAddress, Int32(head), nil)
            else { return false }
            defer { xmlFreeParserCtxt(parser) }
            // No network and no entities substituted: nothing but the bytes given is read.
            xmlCtxtUseOptions(parser, Int32(XML_PARSE_NONET.rawValue))
            document.parser = parser
            defer { document.parser = nil }
            var offset = head
            repeat {
                let count = min(Self.chunkSize, text.count - offset)
                let last = offset + count == text.count
                // After a fatal error libxml2 takes the rest without reading it; an error it
                // recovers from (an undeclared namespace prefix) does not stop it.
                _ = xmlParseChunk(parser, text.baseAddress.map { $0 + offset }, Int32(count), last ? 1 : 0)
                offset += count
            } while offset < text.count && !document.isDone
            return true
        }
    }

    /// The error that stopped the parser: where the file was cut when nothing but blanks
    /// follows where it stopped (a power cut, a kill: on any line of a file that has few),
    /// else a corrupt part (nothing after it can be read).
    private static func report(_ error: XMLDocumentWalk.ParseError, in file: RecordedBytes, into reading: inout TrackFileReading) {
        let lineCount = file.lineCount
        let line = error.line ?? lineCount
        let atEnd = error.offset.map { offset in
            file.contents[min(max(offset, 0), file.contents.count)...].allSatisfy(TrackFileFormat.isWhitespace)
        } ?? (line >= lineCount)
        if atEnd {
            reading.cutShort = .line(line, "")
        } else {
            let location = "line \(line)" + (error.column.map { ", column \($0)" } ?? "")
            reading.stoppedAt = RecordProblem(location, "not well-formed XML")
        }
    }
}
