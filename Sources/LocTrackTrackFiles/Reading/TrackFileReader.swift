/// Reads the bytes of one track file, whatever its kind (``TrackFileSyntax/detect(_:)``):
/// JSON lines, CSV, or XML (GPX, TCX, KML). Pure: the bytes are read by the caller.
package enum TrackFileReader {
    package static func read(_ bytes: [UInt8]) -> TrackFileReading {
        switch TrackFileSyntax.detect(bytes) {
        case .jsonLines: JSONLinesReader.read(bytes)
        case .csv: CSVReader.read(bytes)
        case .xml: XMLTrackReader.read(bytes)
        case nil: TrackFileReading(format: nil)
        }
    }
}
