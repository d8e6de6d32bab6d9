package import LocTrack
import LocTrackFormats

/// One message for Home Assistant: every one is retained, so Home Assistant (and anything
/// else that subscribes later) finds the latest configuration and state at once.
package struct HomeAssistantMessage: Equatable, Sendable {
    package let topic: String
    package let payload: [UInt8]

    package init(_ topic: String, _ payload: String) {
        self.topic = topic
        self.payload = Array(payload.utf8)
    }

    package init(_ topic: String, json: JSONValue) {
        self.init(topic, json.serialized)
    }

    package var text: String { String(decoding: payload, as: UTF8.self) }
}
