/// The opening the publish tests share: a ``PublishRun`` named `name`, a fresh broker
/// (`options`) and a persistent QoS 1 subscriber on `topic` and everything under it,
/// subscribed before `body` runs (as `login`, when given). The broker, the subscriber and
/// their files are always cleaned up afterwards (``withMosquitto(_:_:)``).
package func withPublishing<Result>(
    _ name: String, topic: String, broker options: Mosquitto.Options = Mosquitto.Options(),
    login: (user: String, password: String)? = nil,
    _ body: (_ run: PublishRun, _ broker: Mosquitto, _ subscriber: Subscriber) async throws -> Result
) async throws -> Result {
    let run = try PublishRun(name)
    return try await withMosquitto(options) { broker in
        let subscriber = try await broker.subscribe(
            topic: topic, clientID: subscriberID(name), user: login?.user, password: login?.password)
        return try await body(run, broker, subscriber)
    }
}
