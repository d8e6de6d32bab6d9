import LocTrackCLI
import LocTrackMQTT
import LocTrackSinks

/// The kinds among a parsed command's sink specs, for the parsing tests that check what one
/// kind of destination was given (the product never asks a spec its kind).
protocol SinkSpecHolder {
    var sinks: [AnySinkSpec] { get }
}

extension SinkSpecHolder {
    /// The brokers, Home Assistant's among them.
    var publishes: [PublishOptions] {
        sinks.compactMap { ($0.spec as? MQTTSinkSpec)?.options ?? ($0.spec as? HomeAssistantSinkSpec)?.options }
    }
    var traccars: [TraccarOptions] { sinks.compactMap { ($0.spec as? TraccarSinkSpec)?.options } }
    var records: [RecordOptions] { sinks.compactMap { ($0.spec as? TrackFileSinkSpec)?.options } }
    var udps: [UDPSinkSpec] { sinks.compactMap { $0.spec as? UDPSinkSpec } }
}

extension Command.StreamOptions: SinkSpecHolder {}
extension MonitorCommand.Run: SinkSpecHolder {}
