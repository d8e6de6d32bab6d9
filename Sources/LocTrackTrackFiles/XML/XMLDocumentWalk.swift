import CLibXML2

/// The SAX events of one XML document, for the walk of its kind: the root element says which
/// (`<gpx>`, `<TrainingCenterDatabase>`, `<kml>`); this keeps the depth, the text of the one
/// element a walk asks for, and the error that stopped the parser.
///
/// A class because libxml2 calls back with a pointer to it; used on one thread, by one parse.
final class XMLDocumentWalk {
    /// Where the parser stopped: the first fatal error (not well-formed). libxml2's message is
    /// not kept: loctrack says what the error means for the file, and the line and column say
    /// where to look.
    struct ParseError {
        var line: Int?
        var column: Int?
        /// How many bytes of the document the parser had read: all of them when it was cut.
        var offset: Int?
    }

    /// The walk of the document's kind, once its root element said which.
    private(set) var kind: (any XMLTrackWalk)?
    /// The root element's name, when it is no kind of track loctrack reads.
    private(set) var otherRoot: String?
    private(set) var error: ParseError?
    /// The parser, while it runs: for the line of each element, and to stop it.
    var parser: xmlParserCtxtPtr?

    private var depth = 0
    /// The element whose text is taken, and the text so far.
    private var capture: (depth: Int, text: [UInt8])?

    static func from(_ context: UnsafeMutableRawPointer) -> XMLDocumentWalk {
        Unmanaged<XMLDocumentWalk>.fromOpaque(context).takeUnretainedValue()
    }

    /// Whether parsing can stop: the root element is none loctrack reads.
    var isDone: Bool { otherRoot != nil }

    func start(
        _ name: UnsafePointer<xmlChar>, namespace: UnsafePointer<xmlChar>?, attributeCount: Int,
        attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    ) {
        depth += 1
        guard depth > 1 else { return root(XMLName(name)) }
        guard let kind, capture == nil else { return }
        let element = XMLElementStart(
            name: XMLName(name), namespace: namespace.map(XMLName.init), depth: depth,
            line: parser.map { Int(xmlSAX2GetLineNumber($0)) } ?? 0, attributeCount: attributeCount, attributes: attributes)
        if kind.start(element) { capture = (depth, []) }
    }

    func end() {
        defer { depth -= 1 }
        guard depth > 1, let kind else { return }
        if let captured = capture {
            guard captured.depth == depth else { return }
            capture = nil
            kind.end(depth: depth, text: captured.text)
        } else {
            kind.end(depth: depth, text: nil)
        }
    }

    func characters(_ text: UnsafePointer<xmlChar>, count: Int) {
        guard capture != nil else { return }
        capture!.text.append(contentsOf: UnsafeBufferPointer(start: text, count: count))
    }

    func note(_ error: xmlError) {
        // Fatal: not well-formed, the parser stops. Errors it goes on after (an undeclared
        // namespace prefix, which some programs write in <extensions>) and warnings are no
        // problem of the track's. Only the first counts: what follows it is its echo.
        guard error.level == XML_ERR_FATAL, self.error == nil, !isDone else { return }
        self.error = ParseError(
            line: error.line > 0 ? Int(error.line) : nil, column: error.int2 > 0 ? Int(error.int2) : nil,
            offset: parser.map { Int(xmlByteConsumed($0)) })
    }

    private func root(_ name: XMLName) {
        if name == "gpx" {
            kind = GPXPointWalk()
        } else if name == "TrainingCenterDatabase" {
            kind = TCXPointWalk()
        } else if name == "kml" {
            kind = KMLTrackWalk()
        } else {
            otherRoot = name.string
            // Nothing in it is read: no need to parse the rest.
            if let parser { xmlStopParser(parser) }
        }
    }
}
