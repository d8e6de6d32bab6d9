/// What a ``Publisher``'s thread calls besides its status reports, for a program that
/// talks with the broker's other clients (Home Assistant's `homeassistant/status`).
///
/// It runs on the publisher's thread, between its network steps: it must only hand the
/// message over (to a queue of the program's own) and return, never decide or publish
/// there, so that no work of the program's runs on the publisher's thread.
public struct PublisherHooks: Sendable {
    /// A message arrived on one of ``PublisherConfiguration/subscriptions``.
    public var onMessage: @Sendable (ReceivedMessage) -> Void

    public init(onMessage: @escaping @Sendable (ReceivedMessage) -> Void = { _ in }) {
        self.onMessage = onMessage
    }
}
