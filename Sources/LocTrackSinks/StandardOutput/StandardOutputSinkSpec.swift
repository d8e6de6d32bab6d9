package import LocTrackFormats
/// stdout, when the command line gives no other destination: the command's records in its
/// `--format` (or by the terminal), through the ``OutputWriter``'s thread.
package struct StandardOutputSinkSpec: SinkSpec {
    package init() {}

    /// NMEA's GGA needs SKY (`--format nmea`).
    package func needs(writing format: OutputFormat?) -> SinkNeeds {
        format?.needsSatelliteReports == true ? [.thread, .satelliteReports] : .thread
    }

    package func start(_ context: SinkStartContext) throws(SinkStartError) -> any Sink {
        StandardOutputSink(encoder: context.standardOutput(), onClosed: context.onFatal)
    }
}
