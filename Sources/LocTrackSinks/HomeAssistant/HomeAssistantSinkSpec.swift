package import LocTrackMQTT
package import LocTrackFormats

/// `--publish mqtt://… --ha-discovery`: the tracker as a Home Assistant device (its tracker,
/// sensors and, for `monitor run`, its regions), through the spool and the sink's thread.
/// It shows satellites and DOPs, so it needs gpsd's SKY reports.
package struct HomeAssistantSinkSpec: BrokerSinkSpec {
    package let options: PublishOptions
    package let homeAssistant: HomeAssistantOptions

    package init(_ options: PublishOptions, homeAssistant: HomeAssistantOptions) {
        self.options = options
        self.homeAssistant = homeAssistant
    }

    package func needs(writing format: OutputFormat?) -> SinkNeeds { [.satelliteReports, .spool, .thread] }

    package func start(_ context: SinkStartContext) throws(SinkStartError) -> any Sink {
        do throws(PublishingSetupError) {
            return try HomeAssistantSink(
                options: options, homeAssistant: homeAssistant, withRegions: context.regions, verbose: context.verbose,
                environment: context.environment, onFatal: context.onFatal)
        } catch {
            throw SinkStartError(error.description, exitCode: error.exitCode)
        }
    }
}
