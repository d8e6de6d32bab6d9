import LocTrackFormats
import LocTrackProcess
import LocTrackSystem

/// `--output PATH`: a track file (or files by date), written and synced by the track
/// writer, a process of loctrack's own fed through a pipe by the ``OutputWriter``'s thread.
package struct TrackFileSinkSpec: SinkSpec {
    package let options: RecordOptions

    package init(_ options: RecordOptions) {
        self.options = options
    }

    /// A file named `.nmea` holds NMEA, whose GGA needs SKY (a file that takes `--format nmea`
    /// from the command is covered by the command's format).
    package var needs: SinkNeeds {
        OutputFormat.named(byExtensionOf: options.path.text)?.needsSatelliteReports == true
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
