package import LocTrackFormats
import LocTrackProcess
/// `--publish http(s)://HOST:PORT/?id=DEVICE`: a Traccar server, through the spool and the
/// uplink's thread. Each position carries the satellites (SKY) and the odometer and motion
/// (the command measures distance for it).
package struct TraccarSinkSpec: SinkSpec {
    package let options: TraccarOptions

    package init(_ options: TraccarOptions) {
        self.options = options
    }

    package func needs(writing format: OutputFormat?) -> SinkNeeds { [.satelliteReports, .distance, .spool, .thread] }

    package var spoolFolderGiven: String? { options.spoolDirectory }

    package func spoolFolder(environment: [String: String]) -> String? {
        options.spoolDirectory(environment: environment)
    }

    package func start(_ context: SinkStartContext) throws(SinkStartError) -> any Sink {
        do throws(TraccarSinkError) {
            return try TraccarSink(options: options, environment: context.environment, onFatal: context.onFatal)
        } catch {
            // No libcurl (Debian's libcurl4) is a missing service, like gpsd (69); a spool that
            // cannot be opened, an output failure (74), as for a broker.
            throw SinkStartError(error.description, exitCode: error.missesLibcurl ? .unavailable : .outputFailed)
        }
    }
}
