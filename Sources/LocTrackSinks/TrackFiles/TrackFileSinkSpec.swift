package import LocTrackFormats
import LocTrackProcess
import LocTrackSystem

/// `--output PATH`: a track file (or files by date), written and synced by the track
/// writer, a process of loctrack's own fed through a pipe by the ``OutputWriter``'s thread.
package struct TrackFileSinkSpec: SinkSpec {
    package let options: RecordOptions

    package init(_ options: RecordOptions) {
        self.options = options
    }

    /// A file that holds NMEA (named `.nmea`, or `--format nmea` for a name without a format
    /// of its own) needs SKY for GGA.
    package func needs(writing format: OutputFormat?) -> SinkNeeds {
        OutputFormat(fileName: options.path.text, otherwise: format).needsSatelliteReports
            ? [.thread, .satelliteReports] : .thread
    }

    package func start(_ context: SinkStartContext) throws(SinkStartError) -> any Sink {
        let (encoder, format) = context.trackFile(options)
        do throws(Errno) {
            return try TrackFileSink(
                encoder: encoder, format: format, options: options, alone: context.alone, onClosed: context.onFatal)
        } catch {
            throw SinkStartError("cannot start the track writer: \(error)", exitCode: .outputFailed)
        }
    }
}
