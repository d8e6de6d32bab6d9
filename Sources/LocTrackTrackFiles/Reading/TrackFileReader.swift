/// Reads the bytes of one track file, whatever its kind (``TrackFileFormat/detect(_:)``):
/// JSON lines, CSV or GPX. Pure: the bytes are read by the caller.
package enum TrackFileReader {
    package static func read(_ bytes: [UInt8]) -> TrackFileReading {
        switch TrackFileFormat.detect(bytes) {
        case .jsonLines: JSONLinesReader.read(bytes)
        case .csv: CSVReader.read(bytes)
        case .gpx: GPXReader.read(bytes)
        case nil: TrackFileReading(format: nil)
        }
    }
}
