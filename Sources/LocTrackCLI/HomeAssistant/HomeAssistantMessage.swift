import LocTrack

/// One message for Home Assistant: every one is retained, so Home Assistant (and anything
/// else that subscribes later) finds the latest configuration and state at once.
struct HomeAssistantMessage: Equatable, Sendable {
    let topic: String
    let payload: [UInt8]

    init(_ topic: String, _ payload: String) {
        self.topic = topic
        self.payload = Array(payload.utf8)
    }

    init(_ topic: String, json: JSONValue) {
        self.init(topic, json.serialized)
    }

    var text: String { String(decoding: payload, as: UTF8.self) }
}
