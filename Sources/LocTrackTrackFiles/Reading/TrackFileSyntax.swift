/// How a track file is written, told by its first bytes: which reader reads it. XML is one
/// reader for GPX, TCX and KML, which its root element tells apart.
enum TrackFileSyntax {
    case jsonLines
    case csv
    case xml

    /// The syntax of a file that starts with `bytes`, or nil when it is none of these.
    /// Whitespace and a UTF-8 byte order mark before the first character are skipped. A file
    /// with nothing else (a recording that has no fix yet), or only zero bytes after it (a
    /// power cut), is taken as JSON lines: no lines, or the zeros reported as a cut.
    static func detect(_ bytes: some Collection<UInt8>) -> TrackFileSyntax? {
        var rest = bytes[...]
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        guard let first = rest.firstIndex(where: { !TrackFileFormat.isWhitespace($0) }), rest[first...].contains(where: { $0 != 0 }) else {
            return .jsonLines
        }
        switch rest[first] {
        case UInt8(ascii: "<"): return .xml
        case UInt8(ascii: "{"): return .jsonLines
        default:
            let header = rest[first...].prefix { $0 != 0x0A && $0 != 0x0D }
            return CSVHeader(String(decoding: header, as: UTF8.self)) != nil ? .csv : nil
        }
    }
}
